// The baseline every comparison is relative to: the whole graph on the one device that finishes it
// first on its own (no transfers, ops in topological order).
#include "policies/policy.hpp"

namespace hs {
namespace {

struct FastestDevice {
  std::string name() const { return "fastest-device"; }
  std::string description() const { return "whole graph on the single device that runs it fastest alone"; }
  Plan plan(const PolicyContext& ctx) const {
    const Graph& g = ctx.graph();
    const Platform& p = ctx.platform();
    DeviceId best = -1;
    double best_time = kInfeasible;
    std::string why_not;
    for (DeviceId d = 0; d < p.device_count(); ++d) {
      double total = 0;
      for (OpId o = 0; o < g.op_count() && total < kInfeasible; ++o) {
        total += ctx.cost.op_time(o, d);
        if (total == kInfeasible && why_not.empty()) why_not = ctx.cost.infeasibility_reason(o, d);
      }
      if (total < best_time) {
        best = d;
        best_time = total;
      }
    }
    if (best < 0) throw PlanError("no single device can run the whole graph (for example: " + why_not + ")");
    Plan plan = Plan::empty(g.op_count(), p, name());
    for (OpId o : g.topological_order())
      plan.append(o, best);
    return plan;
  }
};

} // namespace

HS_REGISTER_POLICY(FastestDevice)

} // namespace hs
