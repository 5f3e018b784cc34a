// Applying a rewrite decision: first its layout (indices and sizes only), then, when a Graph is wanted,
// the graph with names.
#include "policies/pareto/rewrite.hpp"
#include "sim/graph_builder.hpp"

#include <algorithm>

namespace hs::pareto {

RewriteLayout layout_rewrites(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d) {
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<int> fusion_of(n, -1), split_of(n, -1);
  for (std::size_t i = 0; i < c.fusions.size(); ++i)
    if (i < d.fuse.size() && d.fuse[i])
      for (OpId x : c.fusions[i].chain)
        fusion_of[static_cast<std::size_t>(x)] = static_cast<int>(i);
  for (std::size_t i = 0; i < c.splits.size(); ++i)
    if (i < d.split.size() && d.split[i] && fusion_of[static_cast<std::size_t>(c.splits[i].op)] < 0)
      split_of[static_cast<std::size_t>(c.splits[i].op)] = static_cast<int>(i);

  RewriteLayout l;
  l.ops.reserve(n);
  l.proto.reserve(n);
  // Where each original op's inputs go (one or two new ops) and which new op produces its outputs.
  // (A split op's inputs go to both halves: reads_into_second.)
  std::vector<OpId> reads_into(n, -1), reads_into_second(n, -1), writes_from(n, -1);
  std::vector<OpId> fused_op(c.fusions.size(), -1);
  const auto add = [&](RewrittenOp info, std::size_t proto) {
    l.ops.push_back(std::move(info));
    l.proto.push_back(static_cast<OpId>(proto));
    return static_cast<OpId>(l.ops.size() - 1);
  };
  const auto add_tensor = [&](RewriteLayout::NewTensor t, std::initializer_list<OpId> consumers) {
    l.tensors.push_back(t);
    l.consumers.insert(l.consumers.end(), consumers);
    l.consumer_begin.push_back(static_cast<std::uint32_t>(l.consumers.size()));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<OpId>(i);
    if (const int f = fusion_of[i]; f >= 0) {
      auto& id = fused_op[static_cast<std::size_t>(f)];
      if (id < 0) id = add({Role::Fused, c.fusions[static_cast<std::size_t>(f)].chain, f}, i);
      reads_into[i] = writes_from[i] = id;
    } else if (const int s = split_of[i]; s >= 0) {
      const OpId a = add({Role::SplitFirst, {x}, s}, i);
      const OpId b = add({Role::SplitSecond, {x}, s}, i);
      const OpId j = add({Role::Join, {x}, s}, i);
      const double half = g.ops[i].bytes_written / 2;
      add_tensor({-1, a, half}, {j});
      add_tensor({-1, b, half}, {j});
      reads_into[i] = a;
      reads_into_second[i] = b;
      writes_from[i] = j;
    } else {
      reads_into[i] = writes_from[i] = add({Role::Plain, {x}, -1}, i);
    }
  }
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    const auto p = static_cast<std::size_t>(tensor.producer);
    const int f = fusion_of[p];
    const bool internal =
        f >= 0 && std::all_of(tensor.consumers.begin(), tensor.consumers.end(),
                              [&](OpId c2) { return fusion_of[static_cast<std::size_t>(c2)] == f; });
    if (internal && !tensor.consumers.empty()) continue;
    l.tensors.push_back({static_cast<TensorId>(t), writes_from[p], tensor.bytes});
    const std::size_t first = l.consumers.size();
    for (OpId c2 : tensor.consumers)
      for (OpId into :
           {reads_into[static_cast<std::size_t>(c2)], reads_into_second[static_cast<std::size_t>(c2)]})
        if (into >= 0 && std::find(l.consumers.begin() + static_cast<std::ptrdiff_t>(first),
                                   l.consumers.end(), into) == l.consumers.end())
          l.consumers.push_back(into);
    l.consumer_begin.push_back(static_cast<std::uint32_t>(l.consumers.size()));
  }
  return l;
}

namespace {
const std::string& precision_of(const Graph& g, const RewriteDecision& d, std::size_t op) {
  return op < d.precision.size() && !d.precision[op].empty() ? d.precision[op] : g.ops[op].precision;
}
} // namespace

bool is_unchanged(const Graph& g, const RewriteDecision& d, const RewriteLayout& layout, std::size_t i) {
  const auto from = static_cast<std::size_t>(layout.proto[i]);
  return layout.ops[i].role == Role::Plain && precision_of(g, d, from) == g.ops[from].precision;
}

Op rewritten_op(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d,
                const RewriteLayout& layout, std::size_t i) {
  const RewrittenOp& info = layout.ops[i];
  const auto proto_id = static_cast<std::size_t>(layout.proto[i]);
  Op proto = g.ops[proto_id].without_edges();
  proto.precision = precision_of(g, d, proto_id);
  switch (info.role) {
  case Role::Plain:
    return proto;
  case Role::Fused: {
    const auto& chain = c.fusions[static_cast<std::size_t>(info.candidate)].chain;
    Op fused = g.op(chain.front()).without_edges();
    fused.precision = proto.precision;
    fused.flops = fused.bytes_read = fused.bytes_written = fused.param_bytes = fused.workspace_bytes = 0;
    fused.name.clear();
    fused.dims.clear(); // a fused kernel is none of the framework's ops: no framework model prices it
    double anchor_flops = -1;
    for (OpId m : chain) {
      const Op& mo = g.op(m);
      fused.flops += mo.flops;
      fused.bytes_read += mo.bytes_read;
      fused.bytes_written += mo.bytes_written;
      fused.param_bytes += mo.param_bytes;
      fused.workspace_bytes = std::max(fused.workspace_bytes, mo.workspace_bytes);
      fused.sensitivity = std::max(fused.sensitivity, mo.sensitivity);
      fused.host_issue = std::max(fused.host_issue, mo.host_issue); // one launch, issued once
      if (mo.flops > anchor_flops) {
        anchor_flops = mo.flops;
        fused.kind = mo.kind; // the cost model's efficiency is the heaviest member's
      }
      fused.name.append(fused.name.empty() ? "" : "+").append(mo.name);
    }
    for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
      const double inter = g.tensor(g.op(chain[k]).outputs.front()).bytes;
      fused.bytes_read = std::max(0.0, fused.bytes_read - inter);
      fused.bytes_written = std::max(0.0, fused.bytes_written - inter);
    }
    return fused;
  }
  case Role::SplitFirst:
  case Role::SplitSecond: {
    Op half = proto;
    half.flops = proto.flops / 2;
    half.bytes_read = proto.param_bytes + std::max(0.0, proto.bytes_read - proto.param_bytes) / 2;
    half.bytes_written = proto.bytes_written / 2;
    half.name.append(info.role == Role::SplitFirst ? "#0" : "#1");
    return half;
  }
  case Role::Join:
    break;
  }
  Op join = proto;
  join.flops = 0;
  join.param_bytes = 0;
  join.workspace_bytes = 0;
  join.bytes_read = proto.bytes_written;
  join.bytes_written = proto.bytes_written;
  join.name.append("#join");
  return join;
}

Rewritten apply_rewrites(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d) {
  return build_rewritten(g, c, d, layout_rewrites(g, c, d));
}

Rewritten build_rewritten(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d,
                          const RewriteLayout& l) {
  GraphBuilder b(g.name, g.name + " (rewritten)");
  b.reserve(l.ops.size(), l.tensors.size());
  for (std::size_t i = 0; i < l.ops.size(); ++i)
    (void)b.add(rewritten_op(g, c, d, l, i));
  std::vector<OpId> consumers;
  for (std::size_t t = 0; t < l.tensors.size(); ++t) {
    const auto& nt = l.tensors[t];
    consumers.assign(l.consumers.begin() + l.consumer_begin[t],
                     l.consumers.begin() + l.consumer_begin[t + 1]);
    if (nt.origin >= 0) {
      const Tensor& original = g.tensor(nt.origin);
      const TensorId id = b.tensor(original.name, nt.bytes, nt.producer, consumers);
      if (original.comm_time) b.set_comm_time(id, *original.comm_time);
    } else {
      // A split half's output: named after the half ("x#0" -> "x#0.out").
      b.tensor(b.mutable_op(nt.producer).name + ".out", nt.bytes, nt.producer, consumers);
    }
  }
  return {std::move(b).build(), l.ops};
}

} // namespace hs::pareto
