#pragma once
// A cost model of ops run through a framework's own kernels (PyTorch's BLAS, oneDNN and native paths):
// per op kind and per intra-op thread count, a model tree (sim/model_tree.hpp) of log seconds over the
// op's named dimensions (`OpAttributes::dims`), log(1 + FLOPs) and log(1 + bytes), so that shapes the
// library dispatches to different paths fall in different leaves. validation/ fits it on kernels measured
// through the framework (validation/framework_cost_model.hpp) and writes it; a calibration entry names
// the file and the thread count its devices run each op on (docs/calibration.md).
//
// One device runs each op on N threads: each N measured has its own trees, because the library's dispatch
// changes with N, so no one speedup curve fits every shape. An N not measured is refused (the scaling is
// measured, not assumed).
//
// File: format "heterosim-framework-model", version 1.
#include "sim/graph.hpp"
#include "sim/json_input.hpp"
#include "sim/model_tree.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs {

class FrameworkModel {
public:
  struct Kind {
    std::vector<std::string> dims;       // the kind's named dimensions, sorted; the trees' first features
    std::map<int, ModelTree> by_threads; // by intra-op thread count
  };

  FrameworkModel() = default;
  static FrameworkModel load(const std::string& path);

  void add_kind(const std::string& kind, Kind k) { kinds_[kind] = std::move(k); }
  bool knows(const std::string& kind) const { return kinds_.count(kind) != 0; }
  // Whether every kind has trees for `threads`.
  bool measured_at(int threads) const;
  std::vector<int> thread_counts() const; // those measured for every kind, ascending

  // Seconds of an op of `kind` with dimensions `dims` (a dimension it lacks counts as 0), on `threads`.
  // Throws std::invalid_argument for an unknown kind or a thread count not measured for it.
  double seconds(const std::string& kind, const std::map<std::string, double>& dims, double flops,
                 double bytes, int threads) const;
  // Seconds of a workload's op, or nullopt where the model does not apply and the roofline stays: the op
  // names no dimensions (backward ops, imported graphs), or its precision or kind is not the model's.
  // Its kind is looked up through `kind_aliases`, its missing dimensions in `graph_dimensions`.
  std::optional<double> op_seconds(const Op& op, int threads) const;

  Json to_json() const;

  std::string source; // what was measured, for provenance
  std::string precision = "fp32";
  // Workload op kinds costed as one of the model's kinds: the builders call a batched product of two
  // activations "attention" and a pooling "pooling", where the framework's op is a GEMM and a pool.
  std::map<std::string, std::string> kind_aliases;
  // Dimensions every op of a workload graph has unless it names them (in_graph = 1: it runs inside a
  // model, after its predecessor, where the fitting points were partly timed alone).
  std::map<std::string, double> graph_dimensions;

private:
  std::map<std::string, Kind> kinds_;
};

} // namespace hs
