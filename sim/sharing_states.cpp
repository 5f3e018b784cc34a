#include "sim/sharing_states.hpp"

#include <algorithm>

namespace hs {

SharingStates::SharingStates() {
  bound(0);
}

void SharingStates::bound(std::size_t max_states) {
  if (!states_.empty() && states_.size() <= max_states) return;
  states_.assign(1, Node{});
  cache_.assign(std::size_t{1} << kCacheBits, CachedStep{});
  table_.assign(64, kNone);
  table_[hash_of({}) & (table_.size() - 1)] = kIdle;
}

std::uint64_t SharingStates::hash_of(const std::vector<RouteCount>& mix) {
  std::uint64_t h = 0;
  for (const RouteCount& rc : mix) {
    h = (h ^ (static_cast<std::uint64_t>(rc.route) << 20 ^ rc.flows)) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29; // multiplication only carries upwards: fold the high bits back into the slot index
  }
  return h;
}

SharingStates::State SharingStates::step(State s, std::uint32_t route, int delta) {
  for (const Transition& t : states_[s].next)
    if (t.route == route && t.delta == delta) return t.to;
  std::vector<RouteCount> mix = states_[s].mix;
  auto it = std::lower_bound(mix.begin(), mix.end(), route,
                             [](const RouteCount& rc, std::uint32_t r) { return rc.route < r; });
  if (delta > 0) {
    if (it != mix.end() && it->route == route)
      ++it->flows;
    else
      mix.insert(it, {route, 1});
  } else if (--it->flows == 0) {
    mix.erase(it);
  }
  const State to = find_or_add(std::move(mix));
  states_[s].next.push_back({route, delta, to});
  return to;
}

SharingStates::State SharingStates::find_or_add(std::vector<RouteCount>&& mix) {
  std::size_t mask = table_.size() - 1;
  const std::uint64_t h = hash_of(mix);
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    if (table_[i] == kNone) {
      const auto id = static_cast<State>(states_.size());
      states_.push_back({std::move(mix), {}, {}});
      table_[i] = id;
      if (2 * states_.size() > table_.size()) { // load factor at most 1/2 keeps probes short
        table_.assign(2 * table_.size(), kNone);
        mask = table_.size() - 1;
        for (State k = 0; k < states_.size(); ++k) {
          std::size_t j = hash_of(states_[k].mix) & mask;
          while (table_[j] != kNone)
            j = (j + 1) & mask;
          table_[j] = k;
        }
      }
      return id;
    }
    if (states_[table_[i]].mix == mix) return table_[i];
  }
}

} // namespace hs
