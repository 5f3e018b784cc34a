#pragma once
// A cost model of ops run through a framework's own kernels (PyTorch's BLAS, oneDNN and native paths),
// fitted on measured points and shape-aware: per op kind, a model tree (model_tree.hpp) of log seconds
// over the op's named dimensions, log FLOPs and log bytes, so that shapes the library dispatches to
// different paths fall in different leaves.
//
// Intra-op threading: one device runs each op on N threads. Each N measured has its own trees, fitted on
// the points measured at N, because the library's dispatch changes with N (PyTorch 1.13 sends 1x1
// convolutions at batch < 16 to oneDNN only above one thread), so no one speedup curve fits every shape.
// At N = 1 the model is the single-thread model; an N not measured is refused (the scaling is measured,
// not assumed).
#include "validation/measurement_set.hpp"
#include "validation/model_tree.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct FrameworkFitOptions {
  bool shape_aware = true; // false: one rate per kind (time proportional to work), the baseline
};

class FrameworkCostModel {
public:
  // `points` carry a `threads` dimension (1 when absent).
  explicit FrameworkCostModel(const std::vector<KernelPoint>& points, FrameworkFitOptions options = {});

  bool knows(const std::string& kind) const { return kinds_.count(kind) != 0; }
  // Seconds of `p` (its kind, shape, FLOPs and bytes) on `threads` intra-op threads. Throws
  // std::invalid_argument for a kind with no training point or a thread count beyond those measured.
  double predict(const KernelPoint& p, int threads) const;
  int max_threads() const { return max_threads_; }

private:
  struct KindModel {
    std::vector<std::string> dims;       // the kind's named dimensions (threads excluded), sorted
    std::map<int, ModelTree> by_threads; // by intra-op thread count; 1 is the single-thread model
  };
  static std::vector<double> features(const KindModel& k, const KernelPoint& p);

  std::map<std::string, KindModel> kinds_;
  int max_threads_ = 1;
};

// Kinds whose size law follows FLOPs (the others follow bytes).
bool compute_bound_kind(const std::string& kind);

} // namespace hs::validation
