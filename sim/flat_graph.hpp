#pragma once
// The numbers of a graph that an evaluation's inner loop reads, in flat arrays indexed by op and tensor.
// An Op or a Tensor carries names, kinds and maps a timeline never reads; walking a few hundred bytes per
// op to reach two doubles is what made the evaluator's graph reads miss the cache. A graph rewrite can
// also make one directly (FlatGraph::Parts), without building a Graph of names first.
#include "sim/graph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hs {

class FlatGraph {
public:
  // What defines the arrays: per op its workspace and parameter bytes; per tensor its size, producer,
  // explicit transfer seconds (negative for none) and consumers, each once, in [consumer_begin[t],
  // consumer_begin[t+1]). An op's inputs and outputs are its tensors in tensor order, as GraphBuilder
  // links them. `optimizer` marks an optimizer step's updates (optimizer_kind); empty: none.
  struct Parts {
    std::vector<double> workspace_bytes, param_bytes;
    std::vector<char> optimizer;
    std::vector<double> tensor_bytes, comm_time;
    std::vector<OpId> producer;
    std::vector<OpId> consumers;
    std::vector<std::uint32_t> consumer_begin = {0};
  };

  FlatGraph() = default;
  explicit FlatGraph(const Graph& g) { assign(g); }
  // Refills every array, keeping their capacity (a search rebinds one evaluator to many graphs).
  void assign(const Graph& g);
  // Throws InputError (naming `label`) when the edges have a cycle.
  void assign(Parts parts, const std::string& label);

  std::size_t op_count() const { return parts_.workspace_bytes.size(); }
  std::size_t tensor_count() const { return parts_.tensor_bytes.size(); }
  std::span<const TensorId> inputs(std::size_t op) const { return range(inputs_, input_begin_, op); }
  std::span<const TensorId> outputs(std::size_t op) const { return range(outputs_, output_begin_, op); }
  std::span<const OpId> consumers(std::size_t t) const {
    return range(parts_.consumers, parts_.consumer_begin, t);
  }
  // Every tensor's consumers back to back: consumers(t) is [consumer_begin(t), consumer_begin(t + 1)).
  const std::vector<OpId>& all_consumers() const { return parts_.consumers; }
  std::uint32_t consumer_begin(std::size_t t) const { return parts_.consumer_begin[t]; }
  std::size_t input_count(std::size_t op) const { return input_begin_[op + 1] - input_begin_[op]; }
  // Beside inputs(op): where op is in each input's consumer list, as an index into all_consumers().
  std::span<const std::uint32_t> input_entries(std::size_t op) const {
    return range(input_entry_, input_begin_, op);
  }
  double workspace_bytes(std::size_t op) const { return parts_.workspace_bytes[op]; }
  double param_bytes(std::size_t op) const { return parts_.param_bytes[op]; }
  bool has_optimizer_ops() const { return !parts_.optimizer.empty(); }
  bool optimizer(std::size_t op) const { return has_optimizer_ops() && parts_.optimizer[op] != 0; }
  double alloc_at_start(std::size_t op) const { return alloc_at_start_[op]; } // outputs + workspace
  double tensor_bytes(std::size_t t) const { return parts_.tensor_bytes[t]; }
  OpId producer(std::size_t t) const { return parts_.producer[t]; }
  double comm_time(std::size_t t) const { return parts_.comm_time[t]; }
  // Graph::topological_order()'s order, and each op's place in it.
  const std::vector<OpId>& topological_order() const { return topo_; }
  int topological_position(std::size_t op) const { return topo_pos_[op]; }

private:
  template <class Id>
  static std::span<const Id> range(const std::vector<Id>& flat, const std::vector<std::uint32_t>& begin,
                                   std::size_t i) {
    return {flat.data() + begin[i], flat.data() + begin[i + 1]};
  }
  void derive(const std::string& label);

  Parts parts_;
  std::vector<TensorId> inputs_, outputs_;
  std::vector<std::uint32_t> input_begin_, output_begin_;
  std::vector<std::uint32_t> input_entry_;
  std::vector<double> alloc_at_start_;
  std::vector<OpId> topo_;
  std::vector<int> topo_pos_;
};

} // namespace hs
