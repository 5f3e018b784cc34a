#pragma once
// When each device is next free, and what part of it a batch occupies. A record with a per-device profile
// (ServiceRecord::first_start, last_end) occupies device d only over [start + first_start[d], start +
// last_end[d]], so the next batch of a plan spread over devices can enter its first device while the
// previous one is still on a later one, as an op-level replay pipelines them. Batches enter each device
// in the order they start (no batch fills another's idle gap on a device). A record without a profile,
// or a batch held whole (continuous batching, service noise), occupies its devices over [start, start +
// seconds]: on one device whose first op starts at 0 the two are the same.
#include "serving/service_source.hpp"
#include "serving/serving_stats.hpp"

#include <functional>
#include <vector>

namespace hs::serving {

class DeviceOccupancy {
public:
  explicit DeviceOccupancy(std::size_t devices) : free_at_(devices, 0.0) {}
  // The earliest time at or after `now` at which a batch of `r` can start; `whole` ignores the profile.
  double earliest_start(const ServiceRecord& r, double now, bool whole) const;
  bool fits(const ServiceRecord& r, double now, bool whole) const {
    return earliest_start(r, now, whole) <= now + 1e-12 * (now > 1.0 ? now : 1.0);
  }
  // Occupies r's devices for a batch started at `now` lasting `seconds` (its makespan, scaled by any
  // noise; a noisy batch is held whole), adding the seconds held to each device's stats.
  void occupy(const ServiceRecord& r, double now, double seconds, bool whole,
              std::vector<DeviceStats>& stats);
  double free_at(std::size_t d) const { return free_at_[d]; }
  // Told of each occupancy given out: the device and the absolute times it is held from and until.
  std::function<void(std::size_t, double, double)> on_span = nullptr;

private:
  std::vector<double> free_at_; // per device: the end of the last occupancy given out
};

} // namespace hs::serving
