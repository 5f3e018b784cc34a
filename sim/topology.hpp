#pragma once
// Routes computed from a platform's topology: devices, switches and bridges joined by links with two ends.
//
// The rule, so that every answer is deterministic: between two devices the route is the path with the least
// total latency (each hop's latency in whole picoseconds, so sums tie exactly); among equally short paths,
// the one with the fewest hops; then the one whose sequence of link names comes first in byte order. A path
// passes through switches and bridges, and through a device only when the platform lists it under
// "transit_devices". The route from the device listed later to the one listed earlier is the same path
// backwards, with every hop's direction flipped, so computed routes are symmetrical as written ones are.
#include "sim/platform.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs {

// For every ordered pair of devices (indexed from * device_count() + to, nullopt on the diagonal), the route
// by the rule above, or nullopt where no path joins the two. Hops only: Platform::set_route sums the rest.
// Expects every link's ends to name a device or node (as the loader checks).
std::vector<std::optional<Route>> compute_routes(const Platform& p);

// Where a written route does not follow the links' ends: the hop that does not start where the previous one
// ended (hop == hops.size() when the last hop does not end at `to`).
struct WalkError {
  std::size_t hop;
  std::string what;
};
std::optional<WalkError> check_walk(const Platform& p, DeviceId from, DeviceId to, const Route& r);

} // namespace hs
