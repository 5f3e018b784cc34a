#include "policies/pareto/rewritten_model.hpp"

#include "sim/op_kinds.hpp"

namespace hs::pareto {

RewrittenModel::RewrittenModel(const CostModel& base, std::shared_ptr<const RewriteCandidates> candidates,
                               RewriteDecision decision)
    : base_(&base), candidates_(std::move(candidates)), decision_(std::move(decision)),
      layout_(layout_rewrites(base.graph(), *candidates_, decision_)) {
  const Graph& g = base.graph();
  const std::size_t n = layout_.ops.size();
  const auto devices = static_cast<std::size_t>(base.platform().device_count());
  FlatGraph::Parts parts;
  parts.workspace_bytes.reserve(n);
  parts.param_bytes.reserve(n);
  op_times_.resize(n * devices);
  for (std::size_t i = 0; i < n; ++i) {
    double* row = op_times_.data() + i * devices;
    if (is_unchanged(g, decision_, layout_, i)) {
      const Op& op = g.ops[static_cast<std::size_t>(layout_.proto[i])];
      parts.workspace_bytes.push_back(op.workspace_bytes);
      parts.param_bytes.push_back(op.param_bytes);
      parts.optimizer.push_back(op.kind == optimizer_kind ? 1 : 0);
      const auto& from = base.op_time_table();
      const auto first =
          from.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(layout_.proto[i]) * devices);
      std::copy(first, first + static_cast<std::ptrdiff_t>(devices), row);
      continue;
    }
    const Op op = rewritten_op(g, *candidates_, decision_, layout_, i);
    parts.workspace_bytes.push_back(op.workspace_bytes);
    parts.param_bytes.push_back(op.param_bytes);
    parts.optimizer.push_back(op.kind == optimizer_kind ? 1 : 0);
    base.op_times(op, row);
  }
  for (std::size_t t = 0; t < layout_.tensors.size(); ++t) {
    const auto& nt = layout_.tensors[t];
    parts.tensor_bytes.push_back(nt.bytes);
    parts.producer.push_back(nt.producer);
    const auto& ct = nt.origin >= 0 ? g.tensor(nt.origin).comm_time : std::nullopt;
    parts.comm_time.push_back(ct ? *ct : -1.0);
  }
  parts.consumers = layout_.consumers;
  parts.consumer_begin = layout_.consumer_begin;
  flat_.assign(std::move(parts), g.name + " (rewritten)");
}

namespace {
// Per new op: the original op it is an unchanged copy of, or -1 (costed anew).
std::vector<OpId> unchanged_ops(const Graph& g, const RewriteDecision& d, const RewriteLayout& layout) {
  std::vector<OpId> same(layout.ops.size(), -1);
  for (std::size_t i = 0; i < layout.ops.size(); ++i)
    if (is_unchanged(g, d, layout, i)) same[i] = layout.proto[i];
  return same;
}
} // namespace

RewrittenModel::Materialised::Materialised(const CostModel& base, const RewriteCandidates& c,
                                           const RewriteDecision& d, const RewriteLayout& layout)
    : rewritten(build_rewritten(base.graph(), c, d, layout)),
      cost(rewritten.graph, base, unchanged_ops(base.graph(), d, layout)) {}

const RewrittenModel::Materialised& RewrittenModel::materialised() const {
  std::call_once(once_, [&] {
    materialised_ = std::make_unique<const Materialised>(*base_, *candidates_, decision_, layout_);
  });
  return *materialised_;
}

} // namespace hs::pareto
