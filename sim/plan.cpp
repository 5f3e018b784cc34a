#include "sim/plan.hpp"

#include <algorithm>
#include <numeric>

namespace hs {

Plan Plan::empty(int ops, const Platform& p, std::string policy) {
  Plan plan;
  plan.policy = std::move(policy);
  plan.device.assign(static_cast<std::size_t>(ops), -1);
  plan.stream.assign(static_cast<std::size_t>(ops), 0);
  plan.pstate.assign(static_cast<std::size_t>(ops), 0);
  plan.queues.resize(static_cast<std::size_t>(p.device_count()));
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    plan.queues[d].resize(static_cast<std::size_t>(p.devices[d].streams));
  return plan;
}

void Plan::append(OpId op, DeviceId dev, int stream_index, int pstate_index) {
  device[static_cast<std::size_t>(op)] = dev;
  stream[static_cast<std::size_t>(op)] = stream_index;
  pstate[static_cast<std::size_t>(op)] = pstate_index;
  queues.at(static_cast<std::size_t>(dev)).at(static_cast<std::size_t>(stream_index)).push_back(op);
}

Plan plan_from_assignment(const Graph& g, const Platform& p, const std::vector<DeviceId>& device,
                          const std::vector<double>& priority, std::string policy) {
  const auto& topo = g.topological_order();
  std::vector<OpId> order(topo.begin(), topo.end());
  std::stable_sort(order.begin(), order.end(), [&](OpId a, OpId b) {
    const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
    if (priority[ia] != priority[ib]) return priority[ia] < priority[ib];
    return g.topological_position(a) < g.topological_position(b);
  });
  Plan plan = Plan::empty(g.op_count(), p, std::move(policy));
  for (OpId o : order)
    plan.append(o, device[static_cast<std::size_t>(o)]);
  return plan;
}

void validate_plan(const Plan& plan, const CostModel& cost) {
  const Graph& g = cost.graph();
  const Platform& p = cost.platform();
  const auto n = static_cast<std::size_t>(g.op_count());
  if (plan.device.size() != n || plan.stream.size() != n || plan.pstate.size() != n)
    throw PlanError("plan covers " + std::to_string(plan.device.size()) + " ops but the graph has " +
                    std::to_string(n));
  if (plan.queues.size() != p.devices.size())
    throw PlanError("plan's queues do not match the platform's devices");
  std::vector<int> seen(n, 0);
  for (std::size_t d = 0; d < plan.queues.size(); ++d) {
    if (plan.queues[d].size() > static_cast<std::size_t>(p.devices[d].streams))
      throw PlanError("device '" + p.devices[d].name + "' has " + std::to_string(p.devices[d].streams) +
                      " streams, plan uses " + std::to_string(plan.queues[d].size()));
    for (std::size_t s = 0; s < plan.queues[d].size(); ++s)
      for (OpId o : plan.queues[d][s]) {
        if (o < 0 || static_cast<std::size_t>(o) >= n)
          throw PlanError("plan queues name an unknown op id " + std::to_string(o));
        const auto oi = static_cast<std::size_t>(o);
        if (plan.device[oi] != static_cast<DeviceId>(d) || plan.stream[oi] != static_cast<int>(s))
          throw PlanError("op '" + g.op(o).name + "' is queued on a stream it is not assigned to");
        ++seen[oi];
      }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& name = g.ops[i].name;
    if (seen[i] != 1)
      throw PlanError("op '" + name + "' is queued " + std::to_string(seen[i]) + " times (expected once)");
    const DeviceId d = plan.device[i];
    const std::string reason = cost.infeasibility_reason(static_cast<OpId>(i), d);
    if (!reason.empty()) throw PlanError("impossible placement: " + reason);
    if (plan.pstate[i] < 0 ||
        static_cast<std::size_t>(plan.pstate[i]) >= p.devices[static_cast<std::size_t>(d)].pstates.size())
      throw PlanError("op '" + name + "' uses p-state " + std::to_string(plan.pstate[i]) + " that device '" +
                      p.devices[static_cast<std::size_t>(d)].name + "' lacks");
  }
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    const DeviceId from = plan.device[static_cast<std::size_t>(tensor.producer)];
    for (OpId c : tensor.consumers) {
      const DeviceId to = plan.device[static_cast<std::size_t>(c)];
      if (cost.transfer_time(t, from, to) == kInfeasible)
        throw PlanError("tensor '" + tensor.name + "' must move from '" +
                        p.devices[static_cast<std::size_t>(from)].name + "' to '" +
                        p.devices[static_cast<std::size_t>(to)].name + "' but no route joins them");
    }
  }
  (void)plan_execution_order(plan, g);
}

std::vector<OpId> plan_execution_order(const Plan& plan, const Graph& g) {
  // Dependencies plus stream order must stay acyclic, or the streams would wait on each other forever.
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<int> indegree(n, 0);
  std::vector<OpId> next_in_stream(n, -1);
  for (const auto& streams : plan.queues)
    for (const auto& q : streams)
      for (std::size_t i = 1; i < q.size(); ++i) {
        next_in_stream[static_cast<std::size_t>(q[i - 1])] = q[i];
        ++indegree[static_cast<std::size_t>(q[i])];
      }
  for (std::size_t i = 0; i < n; ++i)
    indegree[i] += static_cast<int>(g.predecessors(static_cast<OpId>(i)).size());
  std::vector<OpId> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) order.push_back(static_cast<OpId>(i));
  auto release = [&](OpId s) {
    if (--indegree[static_cast<std::size_t>(s)] == 0) order.push_back(s);
  };
  for (std::size_t head = 0; head < order.size(); ++head) {
    const OpId o = order[head];
    for (OpId s : g.successors(o))
      release(s);
    if (next_in_stream[static_cast<std::size_t>(o)] >= 0)
      release(next_in_stream[static_cast<std::size_t>(o)]);
  }
  if (order.size() != n) {
    for (std::size_t i = 0; i < n; ++i)
      if (indegree[i] > 0)
        throw PlanError("plan deadlocks: op '" + g.ops[i].name +
                        "' waits on a stream order that contradicts its dependencies");
  }
  return order;
}

} // namespace hs
