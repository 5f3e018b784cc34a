#pragma once
// Transformer pieces shared by BERT and GPT-2: multi-head attention (each head a parallel branch, or one
// batched op per layer) and the feed-forward block.
#include "workloads/layers.hpp"

#include <string>
#include <vector>

namespace hs::transformer {

struct Dimensions {
  long long hidden = 768;
  long long heads = 12;
  long long inner = 3072;    // FFN width
  bool head_branches = true; // per-head score/softmax/context ops; false: one batched op each per layer
  long long head_dim() const { return hidden / heads; }
};

// GELU, tanh form: x^3, two multiply-adds, tanh, add, two multiplies (Hendrycks & Gimpel 2016).
inline constexpr double kGeluFlops = 8;

// Q/K/V projections of `x` ([rows, hidden]), split by head when head_branches. `prefix` names the layer.
struct Projections {
  std::vector<layers::ValueId> q, k, v;
};
Projections qkv(layers::LayerGraph& g, const std::string& prefix, layers::ValueId x, double rows,
                const Dimensions& d, const std::string& weights_prefix = "");

// Scores, softmax and context for `batch` sequences of `query_len` queries over `key_len` keys; one value
// per head (or one in all). K and V per head may come from a KV cache.
std::vector<layers::ValueId> attend(layers::LayerGraph& g, const std::string& prefix, const Projections& p,
                                    double batch, double query_len, double key_len, const Dimensions& d);

// Output projection of the heads' contexts back to [rows, hidden].
layers::ValueId attention_output(layers::LayerGraph& g, const std::string& prefix,
                                 const std::vector<layers::ValueId>& context, double rows,
                                 const Dimensions& d, const std::string& weights_prefix = "");

// hidden -> inner (GELU) -> hidden.
layers::ValueId feed_forward(layers::LayerGraph& g, const std::string& prefix, layers::ValueId x, double rows,
                             const Dimensions& d, const std::string& weights_prefix = "");

} // namespace hs::transformer
