#include "policies/timetable.hpp"

#include <algorithm>

namespace hs {

double Timetable::earliest_start(int resource, double ready, double duration) const {
  if (free_from(resource, ready)) return ready;
  const auto& slots = busy_[static_cast<std::size_t>(resource)];
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

void Timetable::reserve(int resource, double start, double end) {
  auto& slots = busy_[static_cast<std::size_t>(resource)];
  const auto at = std::upper_bound(slots.begin(), slots.end(), std::make_pair(start, end));
  slots.insert(at, {start, end});
}

void Timetable::release(int resource, double start, double end) {
  auto& slots = busy_[static_cast<std::size_t>(resource)];
  const auto at = std::lower_bound(slots.begin(), slots.end(), std::make_pair(start, end));
  if (at != slots.end() && *at == std::make_pair(start, end)) slots.erase(at);
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
