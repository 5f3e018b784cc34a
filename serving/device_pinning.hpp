#pragma once
// Restricting a graph to a set of devices, for a tenant's placement (serving_config.hpp) and for a
// Pareto cache's searches on those devices (pareto_cache.hpp).
#include "sim/graph.hpp"
#include "sim/platform.hpp"

#include <string>
#include <vector>

namespace hs::serving {

// Pins each op to the listed devices that can run it. A graph input that none of them can hold (an NPU
// runs no `input` kind) stays where the planner puts it, usually the host: its time and energy count, but
// a batch does not hold that device. Returns why an op no listed device runs cannot be placed ("" when
// every op can; nothing is pinned when `devices` is empty).
std::string pin_to_devices(Graph& g, const Platform& p, const std::vector<std::string>& devices);

} // namespace hs::serving
