#pragma once
// The order half of a plan, given the placement half: ops by decreasing upward rank computed on the
// chosen devices' actual costs (not HEFT's means), each appended to its device's first stream. The rank
// order is topological, so the plan never deadlocks; it is list scheduling without insertion.
#include "sim/flat_graph.hpp"
#include "sim/plan.hpp"

#include <string>
#include <vector>

namespace hs::pareto {

// `op_times` is [op][device] at the nominal p-state (CostModel::op_time_table(), or a rewrite's).
Plan plan_for_placement(const FlatGraph& g, const std::vector<double>& op_times, const Platform& platform,
                        const std::vector<DeviceId>& device, std::string policy);

} // namespace hs::pareto
