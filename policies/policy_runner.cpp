#include "policies/policy_runner.hpp"

#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/nearest_name.hpp"
#include "sim/simgrid_engine.hpp"

#include <stdexcept>

namespace hs {

void require_known_policy(const std::string& name) {
  (void)policy_by_name(name);
}

namespace {
// The engines that did not produce the main figure, on the same plan. The contention-free timeline is a
// lower bound only without a scenario (it has no time-varying resources).
std::vector<EngineFigure> other_engines(const Plan& plan, const CostModel& cost, const Scenario& scenario,
                                        const std::string& main_engine) {
  std::vector<EngineFigure> out;
  if (main_engine != "evaluator") out.push_back({"evaluator", run_contention(plan, cost, scenario).makespan});
  if (main_engine != "analytic" && scenario.empty())
    out.push_back({"analytic", run_analytic(plan, cost).makespan});
  return out;
}
// The contention-free lower bound has no time-varying resources: a scenario given to it would be ignored.
void refuse_scenario_on_lower_bound(const std::string& engine, const Scenario& scenario) {
  if (engine == "analytic" && !scenario.empty())
    throw InputError(scenario.file, "",
                     "the analytic engine (a contention-free lower bound) cannot apply a scenario; use "
                     "--engine simgrid or --engine evaluator");
}
} // namespace

PolicyOutcome execute_policy(const std::string& name, const PolicyContext& ctx, const Scenario& scenario,
                             const std::string& engine) {
  PolicyOutcome out;
  const Policy& policy = policy_by_name(name);
  // A hybrid policy's decisions run in the replay; the in-process engines take its plan.
  if (policy.decides_at_run_time() && (engine == "simgrid" || !policy.plans_ahead())) {
    if (engine != "simgrid")
      throw InputError(
          "--engine", engine,
          "policy '" + name +
              "' decides at run time, which only the SimGrid replay can do (use --engine simgrid)");
    // A run-time policy would wait forever for a device that can run this op: name it first.
    const Graph& g = ctx.graph();
    for (OpId op = 0; op < g.op_count(); ++op) {
      bool runnable = false;
      std::string why;
      for (DeviceId d = 0; d < ctx.platform().device_count() && !runnable; ++d) {
        runnable = ctx.cost.feasible(op, d);
        if (!runnable) why += "; " + ctx.cost.infeasibility_reason(op, d);
      }
      if (!runnable) throw PlanError("no device can run op '" + g.op(op).name + "'" + why);
    }
    DynamicRun run = run_simgrid_dynamic(policy, ctx, scenario);
    out.plan = std::move(run.plan);
    out.execution = std::move(run.execution);
    out.cross_check = other_engines(out.plan, ctx.cost, scenario, engine);
    return out;
  }
  return execute_plan(policy.plan(ctx), ctx.cost, scenario, engine);
}

PolicyOutcome execute_plan(Plan plan, const CostModel& cost, const Scenario& scenario,
                           const std::string& engine) {
  refuse_scenario_on_lower_bound(engine, scenario);
  PolicyOutcome out;
  out.plan = std::move(plan);
  validate_plan(out.plan, cost);
  if (engine == "simgrid")
    out.execution = run_simgrid(out.plan, cost, scenario);
  else if (engine == "evaluator")
    out.execution = run_contention(out.plan, cost, scenario);
  else
    out.execution = run_analytic(out.plan, cost);
  out.cross_check = other_engines(out.plan, cost, scenario, engine);
  return out;
}

} // namespace hs
