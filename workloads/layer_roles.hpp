#pragma once
// Which pass each op of a training graph belongs to and which layer owns it, by the names
// workloads/layers.hpp gives: layer "x" has forward op "x", backward ops "x.dgrad", "x.wgrad", "x.bgrad",
// "x.bwd" (and "x.bwd_rhs", a product's second operand), "x.gradsum" (a residual add's output gradients
// summed) and "x.recompute" (its forward again in the backward pass, split and placed as x is), and an
// optimizer op (kind "optimizer", "x.adam"), before which gradient clipping (clip=norm) adds "x.grad_norm",
// "x.clip" and the "grad_clip.*" chain of the optimizer pass (owned by the layer whose norm it reads
// first). Parallelism transformations place and
// split a layer's passes together.
#include "sim/graph.hpp"

#include <string>
#include <vector>

namespace hs {

enum class Pass { Forward, Backward, Optimizer };

struct OpRoles {
  std::vector<Pass> pass;
  std::vector<OpId>
      owner; // the forward op of the layer an op belongs to (itself for a forward op); -1 if none
};

OpRoles roles_of(const Graph& g);

// The name prefix of the ops that turn the per-tensor gradient norms into clipping's coefficient, and the
// suffixes of a layer's own clipping ops: the norm of its gradients and their scaling.
inline constexpr const char* kGradientClipPrefix = "grad_clip.";
inline constexpr const char* kGradientNormSuffix = ".grad_norm";
inline constexpr const char* kGradientScaleSuffix = ".clip";

// Whether `op` belongs to the optimizer pass: an update (kind "optimizer") or gradient clipping's ops.
bool in_optimizer_pass(const Op& op);

// Throws std::invalid_argument naming `transform` when `g` clips its gradients by their global norm: where
// each rank holds a share of the gradients the norm needs every rank's partial sum, which `transform` does
// not reduce (ZeRO; tensor parallelism all-reduces the shards' norms, tensor_parallel.cpp).
void refuse_clipped_gradients(const Graph& g, const std::string& transform);

// Whether `name` ends with `tail` and has something before it.
bool has_suffix(const std::string& name, const std::string& tail);

} // namespace hs
