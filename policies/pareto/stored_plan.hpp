#pragma once
// A plan read back from a Pareto front (front.json, one of its "plans") or from `heterosim select --out`,
// so `heterosim run --plan` can replay it without searching again. The stored form names everything:
// the rewrites (fused chains, split GEMMs, demotions) by op name, and each device's queue by the names of
// the rewritten graph's ops. Loading re-applies the rewrites to the workload's graph and rebuilds the queues;
// anything that does not match (an unknown op, a chain that is not a fusion candidate) is an InputError
// naming the file and the place in it.
#include "policies/pareto/encoding.hpp"
#include "sim/json_input.hpp"

#include <memory>
#include <string>

namespace hs::pareto {

struct StoredPlan {
  std::shared_ptr<const RewrittenModel> rewritten; // null when the plan runs on the workload's graph as is
  const CostModel* cost = nullptr;                 // the cost model the plan refers to
  Plan plan;
  std::string label; // "front.json plan 3 (search)"
};

// `path` is a front.json (then `id` picks the plan; required when the front holds several) or a file
// written by `heterosim select --out` (format "heterosim-plan"). `base` is the workload on the platform.
StoredPlan load_stored_plan(const std::string& path, std::optional<int> id, const CostModel& base);
// One plan entry (a front's "plans" member, or a select file's "plan"), as load_stored_plan reads it: the
// serving cache keeps fronts' entries inside its own file. The label is left empty.
StoredPlan stored_plan_from_entry(const JsonNode& entry, const CostModel& base);

} // namespace hs::pareto
