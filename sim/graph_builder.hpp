#pragma once
// A fluent builder that reads like the graph it makes:
//
//   GraphBuilder g("mlp");
//   auto x  = g.op("input").kind("input").writes(4_MB);
//   auto fc = g.op("fc1").kind("gemm").flops(2e9).reads(8e6).writes(4e6);
//   x.feeds(fc, 4e6);                 // a tensor of 4 MB from x to fc
//   Graph graph = g.build();           // checks references, sizes and cycles
#include "sim/graph.hpp"

#include <string>
#include <unordered_map>

namespace hs {

class GraphBuilder;

class OpHandle {
public:
  OpHandle(GraphBuilder* b, OpId id) : b_(b), id_(id) {}
  OpId id() const { return id_; }

  OpHandle& kind(std::string k);
  OpHandle& precision(std::string p);
  OpHandle& flops(double f);
  OpHandle& reads(double bytes);
  OpHandle& writes(double bytes);
  OpHandle& params(double bytes);
  OpHandle& workspace(double bytes);
  OpHandle& sensitivity(double s);
  OpHandle& host_issue(double seconds);
  OpHandle& only_on(std::vector<std::string> device_kinds);
  OpHandle& pinned_to(std::vector<std::string> device_names);
  OpHandle& time_on(const std::string& device, double seconds); // textbook form

  // A new tensor from this op to `consumer`; returns its id.
  TensorId feeds(const OpHandle& consumer, double bytes, const std::string& tensor_name = "");
  // Textbook form: an edge with an explicit communication time.
  TensorId feeds_in(const OpHandle& consumer, double comm_seconds, const std::string& tensor_name = "");

private:
  Op& op();
  GraphBuilder* b_;
  OpId id_;
};

class GraphBuilder {
public:
  explicit GraphBuilder(std::string graph_name, std::string source_label = "")
      : label_(source_label.empty() ? graph_name : std::move(source_label)) {
    g_.name = std::move(graph_name);
  }

  OpHandle op(const std::string& name);
  // A whole op at once, for builders that derive ops from another graph's: its name is checked as op()
  // checks it, and its inputs and outputs must be empty (tensor() links them).
  OpHandle add(Op op);
  OpHandle handle(OpId id) { return OpHandle(this, id); }
  // A tensor produced by `producer` and read by each of `consumers` (one buffer, several readers).
  TensorId tensor(const std::string& name, double bytes, OpId producer, const std::vector<OpId>& consumers);
  void set_comm_time(TensorId t, double seconds);
  Op& mutable_op(OpId id) { return g_.ops[static_cast<std::size_t>(id)]; }
  int op_count() const { return g_.op_count(); }
  // Room for this many ops and tensors, for builders that know their size (saves regrowing).
  void reserve(std::size_t ops, std::size_t tensors) {
    g_.ops.reserve(ops);
    g_.tensors.reserve(tensors);
    op_names_.reserve(ops);
    tensor_names_.reserve(tensors);
  }

  // Validates (names, sizes, references, acyclicity) and returns the immutable graph.
  Graph build() &&;
  Graph build() & { return GraphBuilder(*this).build_impl(); }

private:
  friend class OpHandle;
  Graph build_impl();
  Graph g_;
  std::string label_;
  std::unordered_map<std::string, OpId> op_names_;
  std::unordered_map<std::string, TensorId> tensor_names_;
};

} // namespace hs
