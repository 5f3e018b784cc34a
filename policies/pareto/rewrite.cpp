#include "policies/pareto/rewrite.hpp"

#include "sim/graph_builder.hpp"

#include <algorithm>
#include <set>

namespace hs::pareto {
namespace {

bool is_anchor(const std::string& kind) {
  static const std::set<std::string> k = {"conv2d", "conv",      "gemm",       "matmul",
                                          "linear", "batchnorm", "elementwise"};
  return k.count(kind) > 0;
}

// Ops that a compiler folds into the epilogue of the op before them.
bool is_epilogue(const std::string& kind) {
  static const std::set<std::string> k = {"batchnorm", "bias",    "bias_add", "relu",       "gelu",
                                          "silu",      "sigmoid", "tanh",     "activation", "elementwise",
                                          "add",       "mul",     "dropout",  "scale"};
  return k.count(kind) > 0;
}

bool share_device(const CostModel& cost, OpId a, OpId b) {
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
    if (cost.feasible(a, d) && cost.feasible(b, d)) return true;
  return false;
}

int feasible_devices(const CostModel& cost, OpId o) {
  int n = 0;
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
    n += cost.feasible(o, d) ? 1 : 0;
  return n;
}

} // namespace

bool RewriteDecision::changes_graph() const {
  const auto on = [](bool b) { return b; };
  return std::any_of(fuse.begin(), fuse.end(), on) || std::any_of(split.begin(), split.end(), on) ||
         std::any_of(precision.begin(), precision.end(), [](const std::string& p) { return !p.empty(); });
}

RewriteCandidates find_rewrite_candidates(const CostModel& cost, const RewriteOptions& o) {
  const Graph& g = cost.graph();
  RewriteCandidates c;
  std::vector<bool> taken(static_cast<std::size_t>(g.op_count()), false);
  for (OpId head : g.topological_order()) {
    const Op& h = g.op(head);
    if (taken[static_cast<std::size_t>(head)] || h.has_explicit_times() || !is_anchor(h.kind)) continue;
    std::vector<OpId> chain = {head};
    OpId cur = head;
    while (static_cast<int>(chain.size()) < o.max_chain) {
      const Op& op = g.op(cur);
      if (op.outputs.size() != 1) break;
      const Tensor& t = g.tensor(op.outputs.front());
      if (t.consumers.size() != 1 || t.comm_time) break;
      const OpId next = t.consumers.front();
      const Op& n = g.op(next);
      if (taken[static_cast<std::size_t>(next)] || n.has_explicit_times() || !is_epilogue(n.kind) ||
          n.precision != h.precision || n.allowed_kinds != h.allowed_kinds ||
          n.allowed_devices != h.allowed_devices || !share_device(cost, head, next))
        break;
      chain.push_back(next);
      cur = next;
    }
    if (chain.size() < 2) continue;
    for (OpId x : chain)
      taken[static_cast<std::size_t>(x)] = true;
    c.fusions.push_back({chain});
  }
  const double total = g.total_flops();
  std::vector<OpId> big;
  for (OpId x = 0; x < g.op_count(); ++x) {
    const Op& op = g.op(x);
    if ((op.kind == "gemm" || op.kind == "matmul" || op.kind == "linear") && !op.has_explicit_times() &&
        op.flops >= o.split_min_flops && op.flops >= o.split_min_share * total &&
        feasible_devices(cost, x) >= 2)
      big.push_back(x);
  }
  std::stable_sort(big.begin(), big.end(), [&](OpId a, OpId b) { return g.op(a).flops > g.op(b).flops; });
  if (static_cast<int>(big.size()) > o.max_splits) big.resize(static_cast<std::size_t>(o.max_splits));
  std::sort(big.begin(), big.end());
  for (OpId x : big)
    c.splits.push_back({x});
  return c;
}

} // namespace hs::pareto
