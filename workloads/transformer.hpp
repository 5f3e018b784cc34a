#pragma once
// Transformer pieces shared by BERT and GPT-2: multi-head attention (each head a parallel branch, or one
// batched op per layer) and the feed-forward block.
#include "workloads/layers.hpp"
#include "workloads/workload_registry.hpp"

#include <string>
#include <vector>

namespace hs::transformer {

struct Dimensions {
  long long hidden = 768;
  long long heads = 12;
  long long inner = 3072;    // FFN width
  bool head_branches = true; // per-head score/softmax/context ops; false: one batched op each per layer
  // Which implementation the graph stands for. Fused (the default): the 1/sqrt(d) scale and the mask are
  // folded into the softmax, as fused attention kernels do. Eager: they are passes of their own over
  // batch x heads x seq^2, as Hugging Face's eager attention runs them (scores / sqrt(d), then + mask).
  bool eager_attention = false;
  // Dropout in training (off by default): on the attention probabilities and on each residual branch,
  // where BERT and GPT-2 apply it (Devlin et al. 2019; Radford et al. 2019, p = 0.1).
  bool dropout = false;
  // GELU as Python arithmetic, one kernel per operation (Hugging Face's NewGELUActivation, GPT-2's
  // "gelu_new"); false: one kernel (torch's F.gelu, a fused bias-GELU).
  bool eager_gelu = false;
  // The projections' implementation. Separate (the default): Q, K and V are three nn.Linear layers, as
  // BERT's are in Hugging Face. Fused: one GEMM of width 3 x hidden makes all three (Megatron-LM's and
  // Hugging Face GPT-2's c_attn), named ".attn.qkv". Weights in-out: every projection but the tied LM head
  // stores its weights [in, out] (GPT-2's Conv1D), a different BLAS call (LayerGraph::store_weights_in_out).
  bool fused_qkv = false;
  bool weights_in_out = false;
  long long head_dim() const { return hidden / heads; }
};

// Dropout draws a mask and multiplies by it: 2 operations per element (an assumption, not a measured
// kernel's count); the mask is kept for the backward pass.
inline constexpr double kDropoutFlops = 2;

// implementation=reference|huggingface of a transformer builder, read before its other options.
// huggingface: each implementation option not given takes the value that makes the graph the one Hugging
// Face transformers' eager PyTorch runs (attn_implementation="eager", the model in train() mode for a
// training step, torch.optim.AdamW's defaults); `gpt2` adds GPT-2's own (gelu_new, Conv1D, every
// token's logits).
void read_implementation(WorkloadParams& p, bool gpt2);
// The parameter read_implementation reads, for a builder's parameter list.
WorkloadParameter implementation_parameter();

// loss=fused|eager (|megatron where `megatron`) of a transformer builder, into `model`; training only.
void read_loss(WorkloadParams& p, const std::string& builder, bool megatron, layers::ModelOptions& model);
WorkloadParameter loss_parameter(bool megatron);

// attention=fused|eager and dropout=off|on (training only) of a transformer builder.
void read_fidelity_options(WorkloadParams& p, const std::string& builder, bool training, Dimensions& d);

// `x` after dropout over `elements` values when the graph trains with dropout on; `x` itself otherwise.
layers::ValueId dropout(layers::LayerGraph& g, const std::string& name, layers::ValueId x, double elements,
                        const Dimensions& d);

// GELU, tanh form: x^3, two multiply-adds, tanh, add, two multiplies (Hendrycks & Gimpel 2016).
inline constexpr double kGeluFlops = 8;

// GELU of `x` over `elements` values, named `name`: one op, or with d.eager_gelu the eight passes of
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) as Python evaluates it, the last named `name`.
layers::ValueId gelu(layers::LayerGraph& g, const std::string& name, layers::ValueId x, double elements,
                     const Dimensions& d);

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
