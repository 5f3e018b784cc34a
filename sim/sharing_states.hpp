#pragma once
// The mixes of flowing transfers an evaluation passes through, as states of an automaton. With every link
// at its nominal capacity, the max-min rates of the flowing transfers depend only on which routes they take
// and how many take each (the mix), and a run (and a search's thousands of runs on one platform) meets the
// same few mixes over and over. A transfer starting or ending moves the evaluator from one state to the
// next through a remembered transition, and each state keeps its rates once solved, so a re-share costs a
// lookup. Rates are solved on the mix in canonical order (routes ascending), so a stored rate is exactly
// what a fresh solve gives: results never depend on what an evaluator met before.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hs {

class SharingStates {
public:
  struct RouteCount {
    std::uint32_t route;
    std::uint32_t flows;
    bool operator==(const RouteCount&) const = default;
  };
  using State = std::uint32_t;
  static constexpr State kIdle = 0; // no transfer flowing

  SharingStates();

  // The state after one more flow on `route`, or one fewer (which must be there).
  State with(State s, std::uint32_t route) { return cached_step(s, route, 1); }
  State without(State s, std::uint32_t route) { return cached_step(s, route, 0); }
  const std::vector<RouteCount>& mix(State s) const { return states_[s].mix; }
  // The per-flow rate on each route of mix(s), or nullptr until store() gave them.
  const double* rates(State s) const { return states_[s].rates.empty() ? nullptr : states_[s].rates.data(); }
  void store(State s, const std::vector<double>& rates) { states_[s].rates = rates; }
  // Forgets every state but kIdle once more than `max_states` are known (call between runs only).
  void bound(std::size_t max_states);

private:
  struct Transition {
    std::uint32_t route;
    int delta;
    State to;
  };
  struct Node {
    std::vector<RouteCount> mix;
    std::vector<double> rates;
    std::vector<Transition> next;
  };
  State step(State s, std::uint32_t route, int delta);
  // A direct-mapped cache of transitions in front of the per-state lists: one probe, no list to walk.
  struct CachedStep {
    std::uint64_t key = ~std::uint64_t{0};
    State to = 0;
  };
  static constexpr unsigned kCacheBits = 12;
  State cached_step(State s, std::uint32_t route, unsigned up) {
    const std::uint64_t key = std::uint64_t{s} << 32 | std::uint64_t{route} << 1 | up;
    CachedStep& c = cache_[(key * 0x9e3779b97f4a7c15ULL) >> (64 - kCacheBits)];
    if (c.key != key) c = {key, step(s, route, up ? +1 : -1)};
    return c.to;
  }
  std::vector<CachedStep> cache_;
  State find_or_add(std::vector<RouteCount>&& mix);
  static std::uint64_t hash_of(const std::vector<RouteCount>& mix);

  std::vector<Node> states_;
  std::vector<State> table_; // open addressing over states_, power-of-two size; kNone marks an empty slot
  static constexpr State kNone = 0xffffffffU;
};

} // namespace hs
