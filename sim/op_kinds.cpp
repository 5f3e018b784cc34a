#include "sim/op_kinds.hpp"

#include "sim/nearest_name.hpp"

#include <algorithm>

namespace hs {

const std::vector<std::string>& known_op_kinds() {
  // What the workload builders, the ONNX and DOT importers, the validation kernels and the rewrites use,
  // sorted.
  static const std::vector<std::string> kinds = {
      "activation", "add",    "attention", "barrier",   "batchnorm", "bias",        "bias_add",
      "collective", "conv",   "conv2d",    "copy",      "dropout",   "elementwise", "embedding",
      "gather",     "gelu",   "gemm",      "generic",   "input",     "layernorm",   "linear",
      "loss",       "matmul", "mul",       "optimizer", "pooling",   "reduce",      "reduction",
      "relu",       "scale",  "scatter",   "sigmoid",   "silu",      "softmax",     "tanh"};
  return kinds;
}

bool is_known_op_kind(const std::string& kind) {
  const auto& k = known_op_kinds();
  return std::binary_search(k.begin(), k.end(), kind);
}

bool is_synchronisation_kind(const std::string& kind) {
  return kind == "collective" || kind == "barrier";
}

std::string unknown_op_kind_message(const std::string& kind) {
  const auto& known = known_op_kinds();
  return "unknown op kind '" + kind + "'" + did_you_mean(kind, known) + " (known: " + name_list(known) + ")";
}

} // namespace hs
