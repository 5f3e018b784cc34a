#pragma once
// Fitting the framework cost model (sim/framework_model.hpp) on points measured through a framework's own
// kernels (PyTorch's BLAS, oneDNN and native paths): per op kind and per intra-op thread count, a model
// tree of log seconds over the op's named dimensions, log FLOPs and log bytes, so that shapes the library
// dispatches to different paths fall in different leaves.
//
// Each N measured has its own trees, fitted on the points measured at N, because the library's dispatch
// changes with N (PyTorch 1.13 sends 1x1 convolutions at batch < 16 to oneDNN only above one thread). At
// N = 1 the model is the single-thread model; an N not measured is refused.
#include "sim/framework_model.hpp"
#include "validation/measurement_set.hpp"

#include <string>
#include <vector>

namespace hs::validation {

struct FrameworkFitOptions {
  bool shape_aware = true; // false: one rate per kind (time proportional to work), the baseline
  // The fewest points a leaf may hold (ModelTreeOptions::min_leaf); 0: the tree's default (3).
  std::size_t min_leaf = 0;
};

class FrameworkCostModel {
public:
  // `points` carry a `threads` dimension (1 when absent).
  explicit FrameworkCostModel(const std::vector<KernelPoint>& points, FrameworkFitOptions options = {});

  bool knows(const std::string& kind) const { return model_.knows(kind); }
  // Seconds of `p` (its kind, shape, FLOPs and bytes) on `threads` intra-op threads. Throws
  // std::invalid_argument for a kind with no training point or a thread count beyond those measured.
  double predict(const KernelPoint& p, int threads) const;
  int max_threads() const { return max_threads_; }
  // The fitted model, as the core cost model reads it.
  const FrameworkModel& model() const { return model_; }

private:
  FrameworkModel model_;
  int max_threads_ = 1;
};

// Kinds whose size law follows FLOPs (the others follow bytes).
bool compute_bound_kind(const std::string& kind);

} // namespace hs::validation
