#pragma once
// What a static policy decides: each op's device, stream and p-state, and each stream's execution order.
#include "sim/cost_model.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

struct Plan {
  std::string policy;
  std::vector<DeviceId> device;                       // per op
  std::vector<int> stream;                            // per op
  std::vector<int> pstate;                            // per op
  std::vector<std::vector<std::vector<OpId>>> queues; // [device][stream]: ops in execution order

  // A plan for `ops` ops on `devices` devices, everything unassigned.
  static Plan empty(int ops, const Platform& p, std::string policy);
  // Assigns `op` to the end of (device, stream)'s queue.
  void append(OpId op, DeviceId dev, int stream_index = 0, int pstate_index = 0);
};

// Orders each device's queue (stream 0) by `priority` (smaller first, ties by topological position),
// which must be consistent with dependencies for the plan to run (start times from a list scheduler are).
Plan plan_from_assignment(const Graph& g, const Platform& p, const std::vector<DeviceId>& device,
                          const std::vector<double>& priority, std::string policy);

// Throws PlanError when the plan is incomplete, places an op where it cannot run, names a missing
// stream or p-state, needs a transfer without a route, or orders a stream against a dependency
// (which would deadlock the replay).
void validate_plan(const Plan& plan, const CostModel& cost);

// An order in which the ops can complete given both dependencies and stream order; throws PlanError if
// the two contradict each other (a deadlock).
std::vector<OpId> plan_execution_order(const Plan& plan, const Graph& g);

struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace hs
