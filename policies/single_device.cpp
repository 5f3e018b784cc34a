#include "policies/single_device.hpp"

#include "sim/contention_engine.hpp"
#include "sim/memory.hpp"

namespace hs {

std::optional<Plan> fastest_single_device_plan(const CostModel& cost, const std::string& policy,
                                               std::string* why_not, double* serial_seconds) {
  const Graph& g = cost.graph();
  const Platform& p = cost.platform();
  DeviceId best = -1;
  double best_time = kInfeasible;
  for (DeviceId d = 0; d < p.device_count(); ++d) {
    double total = 0;
    for (OpId o = 0; o < g.op_count() && total < kInfeasible; ++o) {
      total += cost.op_time(o, d);
      if (total == kInfeasible && why_not && why_not->empty()) *why_not = cost.infeasibility_reason(o, d);
    }
    if (total < best_time) {
      best = d;
      best_time = total;
    }
  }
  if (best < 0) return std::nullopt;
  if (serial_seconds) *serial_seconds = best_time;
  Plan plan = Plan::empty(g.op_count(), p, policy);
  for (OpId o : g.topological_order())
    plan.append(o, best);
  return plan;
}

Plan no_worse_than_single_device(Plan plan, const CostModel& cost, bool respect_capacity,
                                 std::optional<double> planned) {
  double serial = 0;
  auto single = fastest_single_device_plan(cost, plan.policy, nullptr, &serial);
  if (!single) return plan;
  ContentionEvaluator evaluator(cost);
  if (!planned) planned = evaluator.makespan(plan);
  // Its summed op time bounds the single-device plan's makespan from below, so where that alone is longer
  // the evaluation can be skipped (the margin: the evaluator adds the same times in another order).
  if (serial > *planned * (1 + 1e-9)) return plan;
  if (evaluator.makespan(*single) >= *planned) return plan;
  if (respect_capacity) {
    MemoryUsage alone; // the evaluator tracked the single-device plan's peaks as it ran
    alone.peak = evaluator.peak_memory();
    if (!capacity_violations(alone, cost.platform()).empty()) return plan;
  }
  return std::move(*single);
}

} // namespace hs
