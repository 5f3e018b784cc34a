#pragma once
// The discrete-event replay on SimGrid: one actor per device stream runs its queue, one actor per copy
// engine moves tensors as SimGrid communications, so concurrent transfers share link bandwidth and
// overlap compute. Energy comes from SimGrid's host and link energy plugins.
//
// SimGrid keeps one engine per process (a second Engine inherits the first one's clock), so
// run_simgrid() forks a child per replay and reads the result back through a pipe.
#include "sim/execution.hpp"
#include "sim/run_time_scheduler.hpp"
#include "sim/scenario.hpp"

#include <functional>
#include <memory>
#include <string>

namespace hs {

// Replays a static plan; the scenario's profiles and noise apply (the plan itself does not change).
Execution run_simgrid(const Plan& plan, const CostModel& cost, const Scenario& scenario = {});

// Runs the replay in this process. Only once per process; exposed for the benchmark and tests that fork.
Execution run_simgrid_in_this_process(const Plan& plan, const CostModel& cost, const Scenario& scenario = {});

// A run-time policy's replay: the decisions it took, as the Plan actually executed (each stream's ops in
// the order they ran, all at the nominal p-state), and what happened.
struct DynamicRun {
  Plan plan;
  Execution execution;
};
// `start` makes the scheduler, once per replay (in the replay's own process); `policy` names the plan.
DynamicRun run_simgrid_dynamic(const std::function<std::unique_ptr<DynamicScheduler>()>& start,
                               const std::string& policy, const CostModel& cost,
                               const Scenario& scenario = {});

// Binary form of an Execution, for the pipe between the replay child and its parent.
std::string serialize(const Execution& e);
Execution deserialize(const std::string& bytes);

} // namespace hs
