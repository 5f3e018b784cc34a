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

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// The routes by the rule above, found for a pair when first asked (a Dijkstra from the device listed first,
// kept for that device's later routes), nullopt where no path joins the two. Hops only: the platform sums
// the rest. Holds its own copy of the routing graph, so it outlives any copy of `p`. Expects every link's
// ends to name a device or node (as the loader checks).
class TopologyRoutes : public RouteSource {
public:
  explicit TopologyRoutes(const Platform& p);
  ~TopologyRoutes() override;
  std::optional<Route> route(DeviceId from, DeviceId to) const override;
  // For each device, whether a path joins it to `from` (false for `from` itself), without building routes.
  std::vector<bool> joined(DeviceId from) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where a written route does not follow the links' ends: the hop that does not start where the previous one
// ended (hop == hops.size() when the last hop does not end at `to`).
struct WalkError {
  std::size_t hop;
  std::string what;
};
std::optional<WalkError> check_walk(const Platform& p, DeviceId from, DeviceId to, const Route& r);

} // namespace hs
