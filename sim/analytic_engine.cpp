#include "sim/analytic_engine.hpp"

#include "sim/host_issue.hpp"
#include "sim/transfer_rule.hpp"

#include <algorithm>

namespace hs {

Execution run_analytic(const Plan& plan, const CostModel& cost) {
  const Graph& g = cost.graph();
  Execution e;
  e.engine = "analytic";
  e.ops.resize(static_cast<std::size_t>(g.op_count()));
  // Arrival of each tensor on each device that needs it: (device, time) pairs, few per tensor.
  std::vector<std::vector<std::pair<DeviceId, double>>> arrival(static_cast<std::size_t>(g.tensor_count()));
  std::vector<double> stream_free;
  std::vector<std::size_t> stream_base(plan.queues.size(), 0);
  for (std::size_t d = 0; d < plan.queues.size(); ++d) {
    stream_base[d] = stream_free.size();
    stream_free.resize(stream_free.size() + plan.queues[d].size(), 0.0);
  }
  const std::vector<double> issued = host_issue_times(plan, cost.issue_costs(), e.ops.size());
  for (OpId o : plan_execution_order(plan, g)) {
    const auto oi = static_cast<std::size_t>(o);
    const DeviceId dev = plan.device[oi];
    double& free_at =
        stream_free[stream_base[static_cast<std::size_t>(dev)] + static_cast<std::size_t>(plan.stream[oi])];
    double start = issued.empty() ? free_at : std::max(free_at, issued[oi]);
    for (TensorId t : g.op(o).inputs)
      for (const auto& [where, when] : arrival[static_cast<std::size_t>(t)])
        if (where == dev) start = std::max(start, when);
    const double end = start + cost.op_time(o, dev, plan.pstate[oi]);
    e.ops[oi] = {start, end};
    free_at = end;
    e.makespan = std::max(e.makespan, end);
    for (TensorId t : g.op(o).outputs) {
      auto& arrived = arrival[static_cast<std::size_t>(t)];
      arrived.emplace_back(dev, end);
      for_each_destination(
          g.tensor(t).consumers, dev, plan.device,
          [&](DeviceId to) {
            const double finish = end + cost.transfer_time(t, dev, to);
            arrived.emplace_back(to, finish);
            e.transfers.push_back({t, dev, to, g.tensor(t).bytes, end, finish});
            e.makespan = std::max(e.makespan, finish);
          },
          [](OpId) {});
    }
  }
  sort_transfers(e.transfers);
  e.issued = issued;
  fill_analytic_energy(e, plan, cost);
  return e;
}

} // namespace hs
