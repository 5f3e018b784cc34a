#pragma once
// A platform whose devices are CPU threads of this machine (one core each), for comparing SimGrid
// replays with real executions by the thread executor.
#include "sim/platform.hpp"
#include "validation/measurement_set.hpp"

#include <string>

namespace hs::validation {

// JSON text of the platform: `threads` devices named cpu0..cpuN-1 of kind "cpu", with the peak FLOPs and
// memory bandwidth recorded in `m` (and their sources), joined by free links (threads share memory).
std::string thread_platform_json(const MeasurementSet& m, int threads);
Platform thread_platform(const MeasurementSet& m, int threads);

} // namespace hs::validation
