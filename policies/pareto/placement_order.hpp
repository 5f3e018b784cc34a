#pragma once
// The order half of a plan, given the placement half: ops by decreasing upward rank computed on the
// chosen devices' actual costs (not HEFT's means), each appended to its device's first stream. The rank
// order is topological, so the plan never deadlocks; it is list scheduling without insertion.
#include "sim/plan.hpp"

#include <string>
#include <vector>

namespace hs::pareto {

Plan plan_for_placement(const CostModel& cost, const std::vector<DeviceId>& device, std::string policy);

} // namespace hs::pareto
