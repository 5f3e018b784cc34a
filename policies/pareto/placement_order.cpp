#include "policies/pareto/placement_order.hpp"

#include "policies/heft.hpp"

#include <algorithm>

namespace hs::pareto {

Plan plan_for_placement(const FlatGraph& g, const std::vector<double>& op_times, const Platform& platform,
                        const std::vector<DeviceId>& device, std::string policy) {
  const auto devices = static_cast<std::size_t>(platform.device_count());
  const auto transfer = [&](std::size_t t, DeviceId from, DeviceId to) {
    return transfer_seconds(platform, from, to, g.tensor_bytes(t), g.comm_time(t));
  };
  std::vector<double> rank(g.op_count(), 0.0);
  const auto& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const auto o = static_cast<std::size_t>(*it);
    const DeviceId d = device[o];
    double tail = 0.0;
    for (TensorId t : g.outputs(o))
      for (OpId c : g.consumers(static_cast<std::size_t>(t)))
        tail = std::max(tail, transfer(static_cast<std::size_t>(t), d, device[static_cast<std::size_t>(c)]) +
                                  rank[static_cast<std::size_t>(c)]);
    rank[o] = op_times[o * devices + static_cast<std::size_t>(d)] + tail;
  }
  Plan plan = Plan::empty(static_cast<int>(g.op_count()), platform, std::move(policy));
  for (OpId o : order_by_decreasing(g, rank))
    plan.append(o, device[static_cast<std::size_t>(o)]);
  return plan;
}

} // namespace hs::pareto
