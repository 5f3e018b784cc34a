#include "sim/cli/policy_runner.hpp"

#include "sim/analytic_engine.hpp"
#include "sim/error.hpp"
#include "sim/simgrid_engine.hpp"

#include <stdexcept>

namespace hs::cli {

void require_known_policy(const std::string& name) {
  if (PolicyRegistry::instance().find(name) || DynamicPolicyRegistry::instance().find(name)) return;
  std::string known;
  for (const auto& n : all_policy_names())
    known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown policy '" + name + "' (known: " + known + ")");
}

PolicyOutcome execute_policy(const std::string& name, const PolicyContext& ctx, const Scenario& scenario,
                             const std::string& engine) {
  PolicyOutcome out;
  if (const DynamicPolicy* dynamic = DynamicPolicyRegistry::instance().find(name)) {
    if (engine != "simgrid")
      throw InputError(
          "--engine", engine,
          "policy '" + name +
              "' decides at run time, which only the SimGrid replay can do (use --engine simgrid)");
    DynamicRun run = run_simgrid_dynamic(*dynamic, ctx, scenario);
    out.plan = std::move(run.plan);
    out.execution = std::move(run.execution);
    out.analytic_makespan = run_analytic(out.plan, ctx.cost).makespan;
    return out;
  }
  out.plan = policy_by_name(name).plan(ctx);
  validate_plan(out.plan, ctx.cost);
  Execution analytic = run_analytic(out.plan, ctx.cost);
  if (engine == "simgrid") {
    out.analytic_makespan = analytic.makespan;
    out.execution = run_simgrid(out.plan, ctx.cost, scenario);
  } else {
    out.execution = std::move(analytic);
  }
  return out;
}

} // namespace hs::cli
