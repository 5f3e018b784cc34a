#pragma once
// The parts of a platform file that say how devices are joined: "nodes", the links' "ends",
// "transit_devices", "routes" and "unreachable" (platforms/README.md). Used by the platform loader.
#include "sim/json_input.hpp"
#include "sim/platform.hpp"

namespace hs {

// Reads the switches and bridges, each link's ends and the transit devices, failing at their place in
// `root`. Expects the devices and links already read and validated.
void read_topology(Platform& p, const JsonNode& root);

// Gives every pair of devices its route: a written one where the file has it, else the computed one (when
// the links give their ends). A pair left without one is an error unless the file lists it as unreachable.
void read_routes(Platform& p, const JsonNode& root);

} // namespace hs
