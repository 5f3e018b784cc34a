#pragma once
// The numbers of a graph that an evaluation's inner loop reads, in flat arrays indexed by op and tensor.
// An Op or a Tensor carries names, kinds and maps a timeline never reads; walking a few hundred bytes per
// op to reach two doubles is what made the evaluator's graph reads miss the cache.
#include "sim/graph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hs {

struct FlatGraph {
  FlatGraph() = default;
  explicit FlatGraph(const Graph& g) { assign(g); }
  // Refills every array from `g`, keeping their capacity (a search rebinds one evaluator to many graphs).
  void assign(const Graph& g);

  // Each op's input tensors once, first appearance first; its outputs; every listed input use.
  std::span<const TensorId> unique_inputs(std::size_t op) const {
    return range(unique_inputs_, input_begin_, op);
  }
  std::span<const TensorId> outputs(std::size_t op) const { return range(outputs_, output_begin_, op); }
  // Each consumer of a tensor once, and every listed use (an op reading a tensor twice is listed twice).
  std::span<const OpId> unique_consumers(std::size_t t) const {
    return range(unique_consumers_, consumer_begin_, t);
  }
  std::span<const OpId> uses(std::size_t t) const { return range(uses_, use_begin_, t); }

  std::vector<int> input_uses;         // per op: listed inputs (an op reading a tensor twice waits twice)
  std::vector<double> workspace_bytes; // per op
  std::vector<double> param_bytes;     // per op
  std::vector<double> alloc_at_start;  // per op: output bytes + workspace, allocated when it starts
  std::vector<double> tensor_bytes;    // per tensor
  std::vector<OpId> producer;          // per tensor
  std::vector<double> comm_time;       // per tensor: explicit transfer seconds, or negative for none

private:
  template <class Id>
  static std::span<const Id> range(const std::vector<Id>& flat, const std::vector<std::uint32_t>& begin,
                                   std::size_t i) {
    return {flat.data() + begin[i], flat.data() + begin[i + 1]};
  }
  std::vector<TensorId> unique_inputs_, outputs_;
  std::vector<std::uint32_t> input_begin_, output_begin_;
  std::vector<OpId> unique_consumers_, uses_;
  std::vector<std::uint32_t> consumer_begin_, use_begin_;
};

} // namespace hs
