#pragma once
// Busy intervals per resource (a device, a copy engine, a link direction) for list schedulers (HEFT, PEFT,
// ...), with the insertion-based search of Topcuoglu et al. 2002: an op (or a transfer) may fill an idle gap
// between two already placed on the resource.
#include "sim/cost_model.hpp"

#include <vector>

namespace hs {

class Timetable {
public:
  explicit Timetable(int resources) : busy_(static_cast<std::size_t>(resources)) {}

  // Earliest start >= ready at which `duration` fits on `resource`.
  double earliest_start(int resource, double ready, double duration) const;
  void reserve(int resource, double start, double end);
  bool unused(int resource) const { return busy_[static_cast<std::size_t>(resource)].empty(); }
  // Whether nothing is booked on `resource` after time t.
  bool free_from(int resource, double t) const {
    const auto& slots = busy_[static_cast<std::size_t>(resource)];
    return slots.empty() || slots.back().second <= t;
  }
  // Undoes reserve(resource, start, end).
  void release(int resource, double start, double end);

private:
  std::vector<std::vector<std::pair<double, double>>> busy_; // sorted by start
};

// When all of `op`'s inputs could be on `device`, given where and when its producers finished.
double data_ready_time(OpId op, DeviceId device, const CostModel& cost,
                       const std::vector<DeviceId>& placed_on, const std::vector<double>& finish);

} // namespace hs
