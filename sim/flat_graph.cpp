#include "sim/flat_graph.hpp"

#include <algorithm>

namespace hs {

namespace {
// Each element of `list_of(item)` once per item (or every element, when `unique` is false), flattened
// with offsets.
template <class Id, class Items, class ListOf>
void flatten(const Items& items, ListOf list_of, bool unique, std::vector<Id>& flat,
             std::vector<std::uint32_t>& begin) {
  flat.clear();
  begin.assign(1, 0);
  for (const auto& item : items) {
    const auto first = static_cast<std::ptrdiff_t>(flat.size());
    for (Id x : list_of(item))
      if (!unique || std::find(flat.begin() + first, flat.end(), x) == flat.end()) flat.push_back(x);
    begin.push_back(static_cast<std::uint32_t>(flat.size()));
  }
}
} // namespace

void FlatGraph::assign(const Graph& g) {
  const auto inputs = [](const Op& op) -> const auto& {
    return op.inputs;
  };
  const auto outputs = [](const Op& op) -> const auto& {
    return op.outputs;
  };
  const auto consumers = [](const Tensor& t) -> const auto& {
    return t.consumers;
  };
  flatten(g.ops, inputs, true, unique_inputs_, input_begin_);
  flatten(g.ops, outputs, false, outputs_, output_begin_);
  flatten(g.tensors, consumers, true, unique_consumers_, consumer_begin_);
  flatten(g.tensors, consumers, false, uses_, use_begin_);
  for (auto* v : {&workspace_bytes, &param_bytes, &alloc_at_start, &tensor_bytes, &comm_time})
    v->clear();
  input_uses.clear();
  producer.clear();
  for (const Op& op : g.ops) {
    input_uses.push_back(static_cast<int>(op.inputs.size()));
    workspace_bytes.push_back(op.workspace_bytes);
    param_bytes.push_back(op.param_bytes);
    double at_start = op.workspace_bytes;
    for (TensorId t : op.outputs)
      at_start += g.tensor(t).bytes;
    alloc_at_start.push_back(at_start);
  }
  for (const Tensor& t : g.tensors) {
    tensor_bytes.push_back(t.bytes);
    producer.push_back(t.producer);
    comm_time.push_back(t.comm_time ? *t.comm_time : -1.0);
  }
}

} // namespace hs
