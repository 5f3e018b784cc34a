#pragma once
// The workload: ops and the tensors between them. Immutable once built (see GraphBuilder); a rewrite
// makes a new Graph.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs {

using OpId = int;
using TensorId = int;

// Everything an op is except its edges.
struct OpAttributes {
  std::string name;
  std::string kind = "generic"; // op class: gemm, conv2d, elementwise, softmax, ... (cost model key)
  std::string precision = "fp32";
  double flops = 0.0;
  double bytes_read = 0.0;
  double bytes_written = 0.0;
  double param_bytes = 0.0;     // resident on the op's device for the whole run
  double workspace_bytes = 0.0; // allocated only while the op runs
  double sensitivity = 0.0;     // numeric sensitivity, for precision-aware policies
  // Seconds of host time the framework that runs the graph spends issuing the op (an eager framework's
  // Python, dispatcher and kernel launch, sim/host_issue.hpp); 0: issued ahead of the device, as a compiled
  // or graph-captured program is. A device's or a calibration's own issue_overhead replaces it.
  double host_issue = 0.0;
  std::vector<std::string> allowed_kinds; // empty: any device kind
  // Empty: any device. Else the op may run only on these devices (by name): a placement decided before
  // any policy runs (a replica's ops, a collective's steps), which every policy meets because the cost
  // model gives the other devices no finite time.
  std::vector<std::string> allowed_devices;
  std::map<std::string, double> times; // textbook form: explicit seconds per device name
  // Named dimensions (a convolution's batch, cin, cout, h, w, kh, kw, stride, groups, oh, ow; a GEMM's
  // batch, m, n, k, and its row-major layout: transposed_a, transposed_b, 1 where that operand is stored
  // transposed; ...) as the workload builders give them, in the names the framework cost model
  // (sim/framework_model.hpp) was fitted on; empty where the op has none (backward ops, imported graphs).
  std::map<std::string, double> dims;
};

// The dims keys of a GEMM's row-major layout (OpAttributes::dims): 1 where that operand is stored
// transposed, 0 or absent where not.
inline constexpr const char* kTransposedA = "transposed_a";
inline constexpr const char* kTransposedB = "transposed_b";

struct Op : OpAttributes {
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;

  bool has_explicit_times() const { return !times.empty(); }
  // A copy with no inputs and outputs, for a graph rewrite that links its own tensors (copying the edge
  // lists only to clear them costs two allocations per op).
  Op without_edges() const;
  double bytes_moved() const { return bytes_read + bytes_written; }
};

struct Tensor {
  std::string name;
  double bytes = 0.0;
  OpId producer = -1;
  std::vector<OpId> consumers;
  std::optional<double> comm_time; // textbook form: explicit transfer seconds between distinct devices
};

class Graph {
public:
  std::string name;
  std::vector<Op> ops;
  std::vector<Tensor> tensors;

  int op_count() const { return static_cast<int>(ops.size()); }
  int tensor_count() const { return static_cast<int>(tensors.size()); }
  const Op& op(OpId id) const { return ops[static_cast<std::size_t>(id)]; }
  const Tensor& tensor(TensorId id) const { return tensors[static_cast<std::size_t>(id)]; }
  std::optional<OpId> find_op(const std::string& op_name) const;

  // Ops in an order where every producer comes before its consumers (stable: ties by id).
  const std::vector<OpId>& topological_order() const { return topo_; }
  // Where each op stands in topological_order(): the tie-breaker that keeps priority lists valid orders.
  int topological_position(OpId id) const { return topo_pos_[static_cast<std::size_t>(id)]; }
  // Direct predecessor / successor ops (deduplicated), for schedulers.
  const std::vector<OpId>& predecessors(OpId id) const { return preds_[static_cast<std::size_t>(id)]; }
  const std::vector<OpId>& successors(OpId id) const { return succs_[static_cast<std::size_t>(id)]; }

  double total_flops() const;
  bool uses_explicit_times() const;

private:
  friend class GraphBuilder;
  std::vector<OpId> topo_;
  std::vector<int> topo_pos_;
  std::vector<std::vector<OpId>> preds_;
  std::vector<std::vector<OpId>> succs_;
};

} // namespace hs
