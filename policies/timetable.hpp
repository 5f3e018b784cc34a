#pragma once
// Busy intervals per device for list schedulers (HEFT, PEFT, ...), with the insertion-based search of
// Topcuoglu et al. 2002: an op may fill an idle gap between two ops already placed on a device.
#include "sim/cost_model.hpp"

#include <vector>

namespace hs {

class Timetable {
public:
  explicit Timetable(int devices) : busy_(static_cast<std::size_t>(devices)) {}

  // Earliest start >= ready at which `duration` fits on `device`.
  double earliest_start(DeviceId device, double ready, double duration) const;
  void reserve(DeviceId device, double start, double end);

private:
  std::vector<std::vector<std::pair<double, double>>> busy_; // sorted by start
};

// When all of `op`'s inputs could be on `device`, given where and when its producers finished.
double data_ready_time(OpId op, DeviceId device, const CostModel& cost,
                       const std::vector<DeviceId>& placed_on, const std::vector<double>& finish);

} // namespace hs
