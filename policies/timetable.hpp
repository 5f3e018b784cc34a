#pragma once
// Busy intervals per resource (a device, a copy engine, a link direction) for list schedulers (HEFT, PEFT,
// ...), with the insertion-based search of Topcuoglu et al. 2002: an op (or a transfer) may fill an idle gap
// between two already placed on the resource.
#include "sim/cost_model.hpp"

#include <vector>

namespace hs {

class Timetable {
public:
  explicit Timetable(int resources)
      : busy_(static_cast<std::size_t>(resources)), tentative_(static_cast<std::size_t>(resources)) {}

  // Earliest start >= ready at which `duration` fits on `resource`, between reserved and tentative bookings.
  double earliest_start(int resource, double ready, double duration) const;
  void reserve(int resource, double start, double end);
  bool unused(int resource) const {
    const auto r = static_cast<std::size_t>(resource);
    return busy_[r].empty() && tentative_[r].empty();
  }
  // Whether nothing is booked on `resource` after time t.
  bool free_from(int resource, double t) const {
    const auto r = static_cast<std::size_t>(resource);
    const auto& slots = busy_[r];
    return (slots.empty() || slots.back().second <= t) &&
           (tentative_[r].empty() || tentative_[r].back().second <= t);
  }

  // A trial's bookings: seen by the queries above like reserved ones, all dropped at once. A list scheduler
  // books and drops a few for every device it tries; kept apart from the sorted intervals, they cost no
  // insertion or removal there (the answers are the same as if they were reserved and then released).
  void reserve_tentative(int resource, double start, double end);
  void drop_tentative();

private:
  std::vector<std::vector<std::pair<double, double>>> busy_;      // sorted by start
  std::vector<std::vector<std::pair<double, double>>> tentative_; // a few per resource, sorted by start
  std::vector<int> touched_;                                      // resources with tentative bookings
};

// When all of `op`'s inputs could be on `device`, given where and when its producers finished.
double data_ready_time(OpId op, DeviceId device, const CostModel& cost,
                       const std::vector<DeviceId>& placed_on, const std::vector<double>& finish);

} // namespace hs
