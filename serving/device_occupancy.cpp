#include "serving/device_occupancy.hpp"

#include <algorithm>

namespace hs::serving {

namespace {
bool has_profile(const ServiceRecord& r, bool whole) {
  return !whole && r.first_start.size() == r.busy.size() && r.last_end.size() == r.busy.size();
}
} // namespace

double DeviceOccupancy::earliest_start(const ServiceRecord& r, double now, bool whole) const {
  const bool profile = has_profile(r, whole);
  double at = now;
  for (std::size_t d : r.devices)
    at = std::max(at, free_at_[d] - (profile ? r.first_start[d] : 0.0));
  return at;
}

void DeviceOccupancy::occupy(const ServiceRecord& r, double now, double seconds, bool whole,
                             std::vector<DeviceStats>& stats) {
  const bool profile = has_profile(r, whole);
  for (std::size_t d : r.devices) {
    const double from = profile ? r.first_start[d] : 0.0;
    const double until = profile ? r.last_end[d] : seconds;
    free_at_[d] = std::max(free_at_[d], now + until);
    stats[d].held += until - from;
    if (on_span) on_span(d, now + from, now + until);
  }
}

} // namespace hs::serving
