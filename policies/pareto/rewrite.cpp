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
          n.precision != h.precision || n.allowed_kinds != h.allowed_kinds || !share_device(cost, head, next))
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

Rewritten apply_rewrites(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d) {
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<int> fusion_of(n, -1), split_of(n, -1);
  for (std::size_t i = 0; i < c.fusions.size(); ++i)
    if (i < d.fuse.size() && d.fuse[i])
      for (OpId x : c.fusions[i].chain)
        fusion_of[static_cast<std::size_t>(x)] = static_cast<int>(i);
  for (std::size_t i = 0; i < c.splits.size(); ++i)
    if (i < d.split.size() && d.split[i] && fusion_of[static_cast<std::size_t>(c.splits[i].op)] < 0)
      split_of[static_cast<std::size_t>(c.splits[i].op)] = static_cast<int>(i);

  GraphBuilder b(g.name, g.name + " (rewritten)");
  b.reserve(n + 2 * c.splits.size(), g.tensors.size() + 2 * c.splits.size());
  Rewritten r;
  // Where each original op's inputs go (one or two new ops) and which new op produces its outputs.
  // (A split op's inputs go to both halves: reads_into_second.)
  std::vector<OpId> reads_into(n, -1), reads_into_second(n, -1), writes_from(n, -1);
  std::vector<OpId> fused_op(c.fusions.size(), -1);
  auto add = [&](Op op, std::string name, RewrittenOp info) {
    op.name = std::move(name);
    r.ops.push_back(std::move(info));
    return b.add(std::move(op)).id();
  };
  r.ops.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Op proto = g.ops[i].without_edges();
    if (i < d.precision.size() && !d.precision[i].empty()) proto.precision = d.precision[i];
    const auto x = static_cast<OpId>(i);
    if (const int f = fusion_of[i]; f >= 0) {
      auto& id = fused_op[static_cast<std::size_t>(f)];
      if (id < 0) {
        const auto& chain = c.fusions[static_cast<std::size_t>(f)].chain;
        Op fused = g.op(chain.front()).without_edges();
        fused.precision = proto.precision;
        fused.flops = fused.bytes_read = fused.bytes_written = fused.param_bytes = fused.workspace_bytes = 0;
        std::string name;
        double anchor_flops = -1;
        for (OpId m : chain) {
          const Op& mo = g.op(m);
          fused.flops += mo.flops;
          fused.bytes_read += mo.bytes_read;
          fused.bytes_written += mo.bytes_written;
          fused.param_bytes += mo.param_bytes;
          fused.workspace_bytes = std::max(fused.workspace_bytes, mo.workspace_bytes);
          fused.sensitivity = std::max(fused.sensitivity, mo.sensitivity);
          if (mo.flops > anchor_flops) {
            anchor_flops = mo.flops;
            fused.kind = mo.kind; // the cost model's efficiency is the heaviest member's
          }
          name += (name.empty() ? "" : "+") + mo.name;
        }
        for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
          const double inter = g.tensor(g.op(chain[k]).outputs.front()).bytes;
          fused.bytes_read = std::max(0.0, fused.bytes_read - inter);
          fused.bytes_written = std::max(0.0, fused.bytes_written - inter);
        }
        id = add(std::move(fused), std::move(name), {Role::Fused, chain, f});
      }
      reads_into[i] = id;
      writes_from[i] = id;
    } else if (const int s = split_of[i]; s >= 0) {
      Op half = proto;
      half.flops = proto.flops / 2;
      half.bytes_read = proto.param_bytes + std::max(0.0, proto.bytes_read - proto.param_bytes) / 2;
      half.bytes_written = proto.bytes_written / 2;
      const OpId a = add(half, proto.name + "#0", {Role::SplitFirst, {x}, s});
      const OpId bb = add(half, proto.name + "#1", {Role::SplitSecond, {x}, s});
      Op join = proto;
      join.flops = 0;
      join.param_bytes = 0;
      join.workspace_bytes = 0;
      join.bytes_read = proto.bytes_written;
      join.bytes_written = proto.bytes_written;
      const OpId j = add(join, proto.name + "#join", {Role::Join, {x}, s});
      b.tensor(proto.name + "#0.out", proto.bytes_written / 2, a, {j});
      b.tensor(proto.name + "#1.out", proto.bytes_written / 2, bb, {j});
      reads_into[i] = a;
      reads_into_second[i] = bb;
      writes_from[i] = j;
    } else {
      std::string name = std::move(proto.name);
      const OpId id = add(std::move(proto), std::move(name), {Role::Plain, {x}, -1});
      reads_into[i] = id;
      writes_from[i] = id;
    }
  }
  std::vector<OpId> consumers;
  for (const Tensor& t : g.tensors) {
    const auto p = static_cast<std::size_t>(t.producer);
    const int f = fusion_of[p];
    const bool internal = f >= 0 && std::all_of(t.consumers.begin(), t.consumers.end(), [&](OpId c2) {
                            return fusion_of[static_cast<std::size_t>(c2)] == f;
                          });
    if (internal && !t.consumers.empty()) continue;
    consumers.clear();
    for (OpId c2 : t.consumers)
      for (OpId into :
           {reads_into[static_cast<std::size_t>(c2)], reads_into_second[static_cast<std::size_t>(c2)]})
        if (into >= 0 && std::find(consumers.begin(), consumers.end(), into) == consumers.end())
          consumers.push_back(into);
    const TensorId id = b.tensor(t.name, t.bytes, writes_from[p], consumers);
    if (t.comm_time) b.set_comm_time(id, *t.comm_time);
  }
  r.graph = std::move(b).build();
  return r;
}

std::vector<OpId> unchanged_ops(const Rewritten& r, const Graph& original) {
  std::vector<OpId> same(r.ops.size(), -1);
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const RewrittenOp& info = r.ops[i];
    if (info.role != Role::Plain) continue;
    const OpId from = info.origin.front();
    if (r.graph.ops[i].precision == original.op(from).precision) same[i] = from;
  }
  return same;
}

} // namespace hs::pareto
