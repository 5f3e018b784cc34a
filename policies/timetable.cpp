#include "policies/timetable.hpp"

#include <algorithm>

namespace hs {

namespace {

using Slots = std::vector<std::pair<double, double>>;

// The least t >= ready that no interval of `slots` (sorted, not overlapping) overlaps: t + duration <= s or
// t >= e for each.
double earliest_in(const Slots& slots, double ready, double duration) {
  if (slots.empty() || slots.back().second <= ready) return ready;
  double candidate = ready;
  // Intervals do not overlap, so ends are sorted too: skip every interval that ends before `ready`.
  auto first =
      std::partition_point(slots.begin(), slots.end(), [&](const auto& iv) { return iv.second <= ready; });
  for (auto it = first; it != slots.end(); ++it) {
    const auto& [s, e] = *it;
    if (candidate + duration <= s) return candidate; // fits in the gap before this interval
    candidate = std::max(candidate, e);
  }
  return candidate;
}

void insert_sorted(Slots& slots, double start, double end) {
  slots.insert(std::upper_bound(slots.begin(), slots.end(), std::make_pair(start, end)), {start, end});
}

} // namespace

// Alternating the reserved and the tentative intervals until neither moves t gives the least t over both
// sets: each step moves t only past points that some interval overlaps, and stops where none does.
double Timetable::earliest_start(int resource, double ready, double duration) const {
  const auto r = static_cast<std::size_t>(resource);
  double t = earliest_in(busy_[r], ready, duration);
  if (tentative_[r].empty()) return t;
  for (;;) {
    const double u = earliest_in(tentative_[r], t, duration);
    if (u == t) return t;
    t = earliest_in(busy_[r], u, duration);
    if (t == u) return t;
  }
}

void Timetable::reserve_tentative(int resource, double start, double end) {
  auto& tentative = tentative_[static_cast<std::size_t>(resource)];
  if (tentative.empty()) touched_.push_back(resource);
  insert_sorted(tentative, start, end);
}

void Timetable::drop_tentative() {
  for (int r : touched_)
    tentative_[static_cast<std::size_t>(r)].clear();
  touched_.clear();
}

void Timetable::reserve(int resource, double start, double end) {
  insert_sorted(busy_[static_cast<std::size_t>(resource)], start, end);
}

double data_ready_time(OpId op, DeviceId device, const CostModel& cost,
                       const std::vector<DeviceId>& placed_on, const std::vector<double>& finish) {
  const Graph& g = cost.graph();
  double ready = 0.0;
  for (TensorId t : g.op(op).inputs) {
    const OpId p = g.tensor(t).producer;
    const auto pi = static_cast<std::size_t>(p);
    ready = std::max(ready, finish[pi] + cost.transfer_time(t, placed_on[pi], device));
  }
  return ready;
}

} // namespace hs
