// greedy: the engineers' rule of thumb, stated with the roofline model (Williams, Waterman, Patterson,
// "Roofline", CACM 52(4), 2009). An op is compute-bound on an accelerator when its arithmetic intensity
// (FLOPs per byte moved) is at least that device's ridge point (effective peak FLOP/s over effective memory
// bandwidth); compute-bound ops go to the accelerator where they run fastest. Memory-bound ops, and tiny
// ops whose time on the accelerator is mostly launch overhead, go to the CPU. Ops are not moved for their
// neighbours' sake: transfers are whatever the rule implies. Each device runs its ops in topological order.
// Ops with explicit textbook times (no FLOPs) go to their fastest device; so does everything when the
// platform has no CPU or no accelerator, or when the chosen device cannot run the op.
#include "policies/policy.hpp"

namespace hs {
namespace {

struct Greedy {
  std::string name() const { return "greedy"; }
  std::string description() const {
    return "rule of thumb: compute-bound ops (intensity >= ridge point) to the best accelerator, "
           "memory-bound and "
           "launch-dominated ops to the CPU (roofline, Williams et al. 2009)";
  }

  Plan plan(const PolicyContext& ctx) const {
    const Graph& g = ctx.graph();
    std::vector<DeviceId> device(static_cast<std::size_t>(g.op_count()), -1);
    std::vector<double> priority(static_cast<std::size_t>(g.op_count()));
    const auto& topo = g.topological_order();
    for (std::size_t k = 0; k < topo.size(); ++k) {
      const OpId o = topo[k];
      priority[static_cast<std::size_t>(o)] = static_cast<double>(k);
      device[static_cast<std::size_t>(o)] = choose(o, ctx.cost);
      if (device[static_cast<std::size_t>(o)] < 0)
        throw PlanError("greedy: no device can run op '" + g.op(o).name + "'");
    }
    return plan_from_assignment(g, ctx.platform(), device, priority, name());
  }

  // Device kinds that count as the CPU side of the rule; every other kind is an accelerator.
  static bool is_cpu(const Device& d) { return d.kind == "cpu"; }

  static DeviceId fastest(OpId o, const CostModel& cost, bool cpus, bool accelerators) {
    DeviceId best = -1;
    for (DeviceId d = 0; d < cost.platform().device_count(); ++d) {
      const bool cpu = is_cpu(cost.platform().devices[static_cast<std::size_t>(d)]);
      if ((cpu && !cpus) || (!cpu && !accelerators) || !cost.feasible(o, d)) continue;
      if (best < 0 || cost.op_time(o, d) < cost.op_time(o, best)) best = d;
    }
    return best;
  }

  static DeviceId choose(OpId o, const CostModel& cost) {
    const Op& op = cost.graph().op(o);
    const DeviceId any = fastest(o, cost, true, true);
    const DeviceId accelerator = fastest(o, cost, false, true);
    const DeviceId cpu = fastest(o, cost, true, false);
    if (op.has_explicit_times() || accelerator < 0 || cpu < 0) return any;
    const Device& a = cost.platform().devices[static_cast<std::size_t>(accelerator)];
    const double launch = a.launch_overhead;
    const bool launch_dominated = launch >= 0.5 * cost.op_time(o, accelerator);
    const double ridge = a.peak_flops.at(op.precision) * a.efficiency_for(op.kind) /
                         (a.memory_bandwidth * a.memory_efficiency);
    const double intensity = op.bytes_moved() > 0 ? op.flops / op.bytes_moved() : kInfeasible;
    const bool compute_bound = intensity >= ridge;
    return compute_bound && !launch_dominated ? accelerator : cpu;
  }
};

} // namespace

HS_REGISTER_POLICY(Greedy)

} // namespace hs
