#include "policies/pareto/coarsen.hpp"

#include "policies/pareto/precision.hpp"
#include "sim/error.hpp"

#include <algorithm>
#include <numeric>

namespace hs::pareto {
namespace {

struct UnionFind {
  std::vector<int> parent, size;
  explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)), size(static_cast<std::size_t>(n), 1) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  }
  // The smaller root id stays the root, so the result does not depend on merge order details.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent[static_cast<std::size_t>(b)] = a;
    size[static_cast<std::size_t>(a)] += size[static_cast<std::size_t>(b)];
  }
};

std::vector<bool> runnable(const CostModel& cost, OpId o, bool demote) {
  std::vector<bool> ok(static_cast<std::size_t>(cost.platform().device_count()));
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
    ok[static_cast<std::size_t>(d)] = run_precision(cost, o, d, demote).has_value();
  return ok;
}

} // namespace

Coarsening coarsen(const CostModel& cost, const RewriteCandidates& c, const CoarsenOptions& o) {
  const Graph& g = cost.graph();
  const Platform& p = cost.platform();
  const int n = g.op_count();
  const auto nd = static_cast<std::size_t>(p.device_count());
  std::vector<std::vector<bool>> can(static_cast<std::size_t>(n));
  for (OpId x = 0; x < n; ++x) {
    can[static_cast<std::size_t>(x)] = runnable(cost, x, o.allow_demotion);
    if (std::none_of(can[static_cast<std::size_t>(x)].begin(), can[static_cast<std::size_t>(x)].end(),
                     [](bool b) { return b; }))
      throw InputError(p.file, "devices",
                       "no device can run op '" + g.op(x).name + "' (" + cost.infeasibility_reason(x, 0) +
                           ")");
  }
  // Small graphs keep at least about four super-nodes per device, so coarsening never removes the choice.
  const int max_ops = std::clamp(n / (4 * std::max(1, p.device_count())), 1, std::max(1, o.max_ops));
  UnionFind uf(n);
  std::vector<std::vector<bool>> group_can = can;
  auto try_join = [&](OpId a, OpId b) {
    const int ra = uf.find(a), rb = uf.find(b);
    if (ra == rb || uf.size[static_cast<std::size_t>(ra)] + uf.size[static_cast<std::size_t>(rb)] > max_ops)
      return;
    std::vector<bool> both(nd);
    bool any = false;
    for (std::size_t d = 0; d < nd; ++d)
      any |= (both[d] =
                  group_can[static_cast<std::size_t>(ra)][d] && group_can[static_cast<std::size_t>(rb)][d]);
    if (!any) return;
    uf.join(ra, rb);
    group_can[static_cast<std::size_t>(uf.find(ra))] = both;
  };
  for (const auto& f : c.fusions)
    for (std::size_t k = 1; k < f.chain.size(); ++k)
      try_join(f.chain[0], f.chain[k]);
  // Strongest couplings first; ties by tensor id.
  std::vector<std::pair<double, TensorId>> edges;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    const double move = cost.mean_transfer_time(t);
    for (OpId cons : tensor.consumers) {
      const double compute = std::min(cost.mean_op_time(tensor.producer), cost.mean_op_time(cons));
      if (move > o.coupling * compute) edges.emplace_back(move / std::max(compute, 1e-300), t);
    }
  }
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [ratio, t] : edges)
    for (OpId cons : g.tensor(t).consumers)
      try_join(g.tensor(t).producer, cons);

  Coarsening out;
  out.node_of.assign(static_cast<std::size_t>(n), -1);
  std::vector<int> index_of_root(static_cast<std::size_t>(n), -1);
  for (OpId x = 0; x < n; ++x) {
    const int r = uf.find(x);
    auto& idx = index_of_root[static_cast<std::size_t>(r)];
    if (idx < 0) {
      idx = static_cast<int>(out.nodes.size());
      out.nodes.emplace_back();
    }
    out.nodes[static_cast<std::size_t>(idx)].ops.push_back(x);
    out.node_of[static_cast<std::size_t>(x)] = idx;
  }
  for (std::size_t s = 0; s < out.nodes.size(); ++s) {
    SuperNode& node = out.nodes[s];
    const auto& ok = group_can[static_cast<std::size_t>(uf.find(node.ops.front()))];
    struct Option {
      DeviceId d;
      double time, energy, capacity;
      bool demotes;
    };
    std::vector<Option> options;
    for (DeviceId d = 0; d < p.device_count(); ++d) {
      if (!ok[static_cast<std::size_t>(d)]) continue;
      node.feasible.push_back(d);
      const Device& dev = p.devices[static_cast<std::size_t>(d)];
      double time = 0, params = 0, workspace = 0;
      bool demotes = false;
      for (OpId x : node.ops) {
        // A demoted op has no time in this cost model (only the rewritten graph's has one), so a device
        // that demotes is never pruned by dominance and never prunes another.
        const double t = cost.op_time(x, d);
        demotes |= !(t < kInfeasible);
        time += t < kInfeasible ? t : 0.0;
        params += g.op(x).param_bytes;
        workspace = std::max(workspace, g.op(x).workspace_bytes);
      }
      if (params + workspace > dev.memory_capacity) continue;
      options.push_back({d, time, time * dev.pstates.front().busy_watts, dev.memory_capacity, demotes});
    }
    for (const auto& a : options) {
      // Plain dominance on the super-node alone would be wrong: a slower device still shortens the makespan
      // by running in parallel. Only a device far slower (prune_slowdown) than one that also costs no more
      // energy and has no less capacity is dropped.
      const bool dominated = !a.demotes && std::any_of(options.begin(), options.end(), [&](const Option& b) {
        if (b.demotes || b.d == a.d) return false;
        return a.time > o.prune_slowdown * b.time && b.energy <= a.energy && b.capacity >= a.capacity;
      });
      if (!dominated) node.devices.push_back(a.d);
    }
    if (node.devices.empty()) node.devices = node.feasible; // over capacity everywhere: the evaluator says so
    std::stable_sort(node.devices.begin(), node.devices.end(), [&](DeviceId a, DeviceId b) {
      const auto time_of = [&](DeviceId d) {
        for (const auto& op : options)
          if (op.d == d) return op.time;
        return kInfeasible;
      };
      return time_of(a) < time_of(b);
    });
  }
  return out;
}

} // namespace hs::pareto
