#pragma once
// Runs any policy, static, run-time or hybrid, on any engine, the same way for `run`, `compare`, the Python
// module, the studies and the tests.
#include "policies/policy.hpp"
#include "sim/execution.hpp"
#include "sim/report.hpp"
#include "sim/scenario.hpp"

#include <optional>
#include <string>

namespace hs {

struct PolicyOutcome {
  Plan plan; // for a run-time policy: the plan it actually executed, reconstructed from its decisions
  Execution execution;
  std::vector<EngineFigure> cross_check; // the other engines on the same plan
};

// `engine` is "simgrid", "evaluator" or "analytic"; the other two engines' makespans on the same plan go to
// `cross_check`. A run-time policy needs SimGrid (InputError otherwise). Scenarios act on SimGrid and the
// evaluator; the analytic engine refuses them (InputError), as it has no time-varying resources.
PolicyOutcome execute_policy(const std::string& policy, const PolicyContext& ctx, const Scenario& scenario,
                             const std::string& engine);

// The same for a plan made elsewhere (a stored plan): validated, run on `engine`, cross-checked.
PolicyOutcome execute_plan(Plan plan, const CostModel& cost, const Scenario& scenario,
                           const std::string& engine);

// Throws std::invalid_argument listing every known policy when `name` is none of them.
void require_known_policy(const std::string& name);

} // namespace hs
