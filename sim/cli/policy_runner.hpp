#pragma once
// Runs any policy, static or run-time, the same way for `run` and `compare`.
#include "policies/dynamic_policy.hpp"
#include "sim/execution.hpp"
#include "sim/scenario.hpp"

#include <optional>
#include <string>

namespace hs::cli {

struct PolicyOutcome {
  Plan plan; // for a run-time policy: the plan it actually executed, reconstructed from its decisions
  Execution execution;
  std::optional<double> analytic_makespan; // the analytic engine on the same plan, when SimGrid ran
};

// `engine` is "simgrid" or "analytic". A run-time policy needs SimGrid (InputError otherwise); scenarios
// only act on SimGrid.
PolicyOutcome execute_policy(const std::string& policy, const PolicyContext& ctx, const Scenario& scenario,
                             const std::string& engine);

// Throws std::invalid_argument listing every known policy when `name` is none of them.
void require_known_policy(const std::string& name);

} // namespace hs::cli
