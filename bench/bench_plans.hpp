#pragma once
// Plans the benchmarks share.
#include "sim/plan.hpp"

namespace hs::bench {

// Cheap deterministic plan for very large graphs: each op on the fastest device that can run it, queues in
// topological order (a list scheduler's planning time is not what the benchmarks measure).
inline Plan fastest_per_op(const CostModel& cost) {
  const Graph& g = cost.graph();
  Plan plan = Plan::empty(g.op_count(), cost.platform(), "fastest-per-op");
  for (OpId o : g.topological_order()) {
    DeviceId best = 0;
    for (DeviceId d = 1; d < cost.platform().device_count(); ++d)
      if (cost.op_time(o, d) < cost.op_time(o, best)) best = d;
    plan.append(o, best);
  }
  return plan;
}

} // namespace hs::bench
