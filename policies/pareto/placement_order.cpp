#include "policies/pareto/placement_order.hpp"

#include "policies/heft.hpp"

#include <algorithm>

namespace hs::pareto {

Plan plan_for_placement(const CostModel& cost, const std::vector<DeviceId>& device, std::string policy) {
  const Graph& g = cost.graph();
  std::vector<double> rank(static_cast<std::size_t>(g.op_count()), 0.0);
  const auto& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const OpId o = *it;
    const DeviceId d = device[static_cast<std::size_t>(o)];
    double tail = 0.0;
    for (TensorId t : g.op(o).outputs)
      for (OpId c : g.tensor(t).consumers)
        tail = std::max(tail, cost.transfer_time(t, d, device[static_cast<std::size_t>(c)]) +
                                  rank[static_cast<std::size_t>(c)]);
    rank[static_cast<std::size_t>(o)] = cost.op_time(o, d) + tail;
  }
  Plan plan = Plan::empty(g.op_count(), cost.platform(), std::move(policy));
  for (OpId o : order_by_decreasing(g, rank))
    plan.append(o, device[static_cast<std::size_t>(o)]);
  return plan;
}

} // namespace hs::pareto
