#pragma once
// The discrete-event replay on SimGrid: one actor per device stream runs its queue, one actor per copy
// engine moves tensors as SimGrid communications, so concurrent transfers share link bandwidth and
// overlap compute. Energy comes from SimGrid's host and link energy plugins.
//
// SimGrid keeps one engine per process (a second Engine inherits the first one's clock), so
// run_simgrid() forks a child per replay and reads the result back through a pipe.
#include "sim/execution.hpp"

namespace hs {

Execution run_simgrid(const Plan& plan, const CostModel& cost);

// Runs the replay in this process. Only once per process; exposed for the benchmark and tests that fork.
Execution run_simgrid_in_this_process(const Plan& plan, const CostModel& cost);

// Binary form of an Execution, for the pipe between the replay child and its parent.
std::string serialize(const Execution& e);
Execution deserialize(const std::string& bytes);

} // namespace hs
