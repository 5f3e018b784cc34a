#pragma once
// Builds a HeteroSim Platform as a SimGrid platform: a device is a single-core host whose speed per
// p-state is kNominalSpeed times the state's relative speed (ops arrive as durations from the CostModel);
// a link is a split-duplex or shared SimGrid link; each route is added with its link directions.
#include "sim/platform.hpp"
#include "sim/scenario.hpp"

#include <simgrid/s4u.hpp>
#include <utility>
#include <vector>

namespace hs {

// Work units per second of a device at its nominal p-state: an op of d seconds executes d * kNominalSpeed.
constexpr double kNominalSpeed = 1e9;

struct SimgridPlatform {
  std::vector<simgrid::s4u::Host*> hosts;              // per device
  std::vector<std::vector<simgrid::s4u::Link*>> links; // per link: [shared] or [up, down], for energy
  std::vector<simgrid::s4u::Link*> route_links;        // per link: what routes name
};

// Must run after the Engine and the energy plugins are initialised and before the simulation starts.
// Scenario profiles (background load, degraded links) become SimGrid speed and bandwidth profiles.
// `pairs`: the ordered device pairs that get a route in SimGrid's zone (a plan's transfers), every routed
// pair when null. SimGrid's full zone stores a route per pair, which a thousand devices cannot afford.
SimgridPlatform build_simgrid_platform(const Platform& p, const Scenario& scenario = {},
                                       const std::vector<std::pair<DeviceId, DeviceId>>* pairs = nullptr);

// Configuration that makes SimGrid's network exact for HeteroSim (see DESIGN.md): call before any zone.
void configure_exact_network();

} // namespace hs
