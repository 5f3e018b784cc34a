#include "sim/flat_graph.hpp"

#include "sim/error.hpp"
#include "sim/op_kinds.hpp"
#include "sim/topological_order.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hs {

void FlatGraph::assign(const Graph& g) {
  Parts& p = parts_;
  for (auto* v : {&p.workspace_bytes, &p.param_bytes, &p.tensor_bytes, &p.comm_time})
    v->clear();
  p.producer.clear();
  p.optimizer.clear();
  p.consumers.clear();
  p.consumer_begin.assign(1, 0);
  for (const Op& op : g.ops) {
    p.workspace_bytes.push_back(op.workspace_bytes);
    p.param_bytes.push_back(op.param_bytes);
  }
  if (std::any_of(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.kind == optimizer_kind; }))
    for (const Op& op : g.ops)
      p.optimizer.push_back(op.kind == optimizer_kind ? 1 : 0);
  for (const Tensor& t : g.tensors) {
    p.tensor_bytes.push_back(t.bytes);
    p.producer.push_back(t.producer);
    p.comm_time.push_back(t.comm_time ? *t.comm_time : -1.0);
    for (OpId c : t.consumers)
      if (std::find(p.consumers.begin() + p.consumer_begin.back(), p.consumers.end(), c) == p.consumers.end())
        p.consumers.push_back(c);
    p.consumer_begin.push_back(static_cast<std::uint32_t>(p.consumers.size()));
  }
  derive(g.name);
}

void FlatGraph::assign(Parts parts, const std::string& label) {
  parts_ = std::move(parts);
  derive(label);
}

// Inputs and outputs by op (counting sort of the tensors' edges, so each op's lists are in tensor order),
// the bytes an op allocates when it starts, and the topological order.
void FlatGraph::derive(const std::string& label) {
  const std::size_t n = op_count(), nt = tensor_count();
  if (std::none_of(parts_.optimizer.begin(), parts_.optimizer.end(), [](char c) { return c != 0; }))
    parts_.optimizer.clear();
  else if (parts_.optimizer.size() != n)
    throw std::invalid_argument("FlatGraph: optimizer flags for " + std::to_string(parts_.optimizer.size()) +
                                " ops, not " + std::to_string(n));
  output_begin_.assign(n + 1, 0);
  input_begin_.assign(n + 1, 0);
  for (std::size_t t = 0; t < nt; ++t) {
    ++output_begin_[static_cast<std::size_t>(parts_.producer[t]) + 1];
    for (const OpId c : consumers(t))
      ++input_begin_[static_cast<std::size_t>(c) + 1];
  }
  for (std::size_t o = 0; o < n; ++o) {
    output_begin_[o + 1] += output_begin_[o];
    input_begin_[o + 1] += input_begin_[o];
  }
  outputs_.resize(output_begin_[n]);
  inputs_.resize(input_begin_[n]);
  input_entry_.resize(input_begin_[n]);
  std::vector<std::uint32_t> next_out(output_begin_.begin(), output_begin_.end() - 1),
      next_in(input_begin_.begin(), input_begin_.end() - 1);
  for (std::size_t t = 0; t < nt; ++t) {
    outputs_[next_out[static_cast<std::size_t>(parts_.producer[t])]++] = static_cast<TensorId>(t);
    for (std::uint32_t k = parts_.consumer_begin[t]; k < parts_.consumer_begin[t + 1]; ++k) {
      const std::uint32_t at = next_in[static_cast<std::size_t>(parts_.consumers[k])]++;
      inputs_[at] = static_cast<TensorId>(t);
      input_entry_[at] = k;
    }
  }
  alloc_at_start_.resize(n);
  for (std::size_t o = 0; o < n; ++o) {
    double at_start = parts_.workspace_bytes[o];
    for (const TensorId t : outputs(o))
      at_start += parts_.tensor_bytes[static_cast<std::size_t>(t)];
    alloc_at_start_[o] = at_start;
  }
  // An edge per (tensor, consumer): an op reading two tensors of one producer counts that producer twice
  // in its indegree and is released by both edges.
  std::vector<int> indegree(n, 0);
  for (std::size_t o = 0; o < n; ++o)
    indegree[o] = static_cast<int>(input_count(o));
  std::vector<OpId> successors;
  topo_ = stable_topological_order(indegree, [&](OpId o) -> const std::vector<OpId>& {
    successors.clear();
    for (const TensorId t : outputs(static_cast<std::size_t>(o)))
      for (const OpId c : consumers(static_cast<std::size_t>(t)))
        successors.push_back(c);
    return successors;
  });
  if (topo_.size() != n) throw InputError(label, "", "the graph has a cycle");
  topo_pos_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    topo_pos_[static_cast<std::size_t>(topo_[i])] = static_cast<int>(i);
}

} // namespace hs
