#include "workloads/transformer.hpp"

#include "sim/error.hpp"

namespace hs::transformer {

using layers::ValueId;

namespace {
std::string shared(const std::string& weights_prefix, const std::string& suffix) {
  return weights_prefix.empty() ? "" : weights_prefix + suffix;
}

// A projection of `x` ([rows, in]) to `out` features in `parts` column blocks, its weights laid out as d
// says.
std::vector<ValueId> project(layers::LayerGraph& g, const std::string& name, const std::vector<ValueId>& x,
                             double rows, double in, double out, int parts, const std::string& weights_from,
                             const Dimensions& d) {
  auto y = g.linear_parts(name, x, rows, in, out, true, parts, weights_from);
  if (d.weights_in_out) g.store_weights_in_out(name);
  return y;
}
} // namespace

void read_implementation(WorkloadParams& p, bool gpt2) {
  if (p.text("implementation", "reference", {"reference", "huggingface"}) != "huggingface") return;
  const bool training = p.text("mode", "inference", {}) == "training"; // checked by read_model_options
  p.default_to("heads", "fused");
  p.default_to("attention", "eager");
  p.default_to("issue", "eager");
  p.default_to("device", "gpu"); // the model moved to the GPU: PyTorch runs every op there
  if (training) {
    p.default_to("dropout", "on");
    p.default_to("optimizer", "foreach");
    p.default_to("loss", "eager");
    p.default_to("bias_grad", "separate");
  }
  if (!gpt2) return;
  p.default_to("gelu", "eager");
  p.default_to("projections", "conv1d");
  p.default_to("lm_head", "all");
}

WorkloadParameter implementation_parameter() {
  return {"implementation", "reference|huggingface",
          "huggingface: the defaults of the options below as Hugging Face's eager PyTorch runs the model "
          "(workloads/README.md)"};
}

void read_loss(WorkloadParams& p, const std::string& builder, bool megatron, layers::ModelOptions& model) {
  std::vector<std::string> choices = {"fused", "eager"};
  if (megatron) choices.emplace_back("megatron");
  const std::string loss = p.text("loss", "fused", choices);
  if (loss != "fused" && !model.training)
    throw InputError(builder, "loss", "the loss is computed in training: give mode=training");
  model.loss = loss == "eager"      ? layers::Loss::Eager
               : loss == "megatron" ? layers::Loss::Megatron
                                    : layers::Loss::Fused;
}

WorkloadParameter loss_parameter(bool megatron) {
  return {"loss", megatron ? "fused|eager|megatron" : "fused|eager",
          std::string(
              "training: one pass over the logits each way, or F.cross_entropy's log_softmax and nll_loss") +
              (megatron ? ", or Megatron-LM's cross-entropy on an fp32 copy" : "")};
}

void read_fidelity_options(WorkloadParams& p, const std::string& builder, bool training, Dimensions& d) {
  d.eager_attention = p.text("attention", "fused", {"fused", "eager"}) == "eager";
  d.dropout = p.text("dropout", "off", {"off", "on"}) == "on";
  if (d.dropout && !training)
    throw InputError(builder, "dropout", "dropout is applied in training only (mode=training)");
}

ValueId dropout(layers::LayerGraph& g, const std::string& name, ValueId x, double elements,
                const Dimensions& d) {
  if (!d.dropout || !g.training()) return x;
  return g.elementwise(name, {x}, elements, kDropoutFlops, layers::Saved::Output);
}

ValueId gelu(layers::LayerGraph& g, const std::string& name, ValueId x, double elements,
             const Dimensions& d) {
  using layers::Saved;
  if (!d.eager_gelu) return g.elementwise(name, {x}, elements, kGeluFlops, Saved::Inputs);
  // Each pass saves what autograd saves for its backward: pow its input, tanh its output, the final product
  // both factors; products by a constant save nothing, and x + c is an add whose gradient passes through.
  const ValueId half = g.elementwise(name + ".half", {x}, elements, 1, Saved::Nothing); // 0.5 * x
  const ValueId cube = g.elementwise(name + ".cube", {x}, elements, 2, Saved::Inputs);  // x^3
  const ValueId term = g.elementwise(name + ".term", {cube}, elements, 1, Saved::Nothing);
  const ValueId inner = g.add(name + ".inner", {x, term}, elements);
  const ValueId scaled = g.elementwise(name + ".scaled", {inner}, elements, 1, Saved::Nothing);
  const ValueId tanh = g.elementwise(name + ".tanh", {scaled}, elements, 4, Saved::Output);
  const ValueId gate = g.elementwise(name + ".gate", {tanh}, elements, 1, Saved::Nothing); // 1 + tanh
  return g.elementwise(name, {half, gate}, elements, 1, Saved::Inputs);
}

Projections qkv(layers::LayerGraph& g, const std::string& prefix, ValueId x, double rows, const Dimensions& d,
                const std::string& weights_prefix) {
  const int parts = d.head_branches ? static_cast<int>(d.heads) : 1;
  const auto h = static_cast<double>(d.hidden);
  Projections p;
  if (d.fused_qkv) { // columns [Q | K | V], each split by head as the separate projections are
    const auto all =
        project(g, prefix + ".qkv", {x}, rows, h, 3 * h, 3 * parts, shared(weights_prefix, ".qkv"), d);
    const auto block = [&](int i) {
      return std::vector<ValueId>(all.begin() + i * parts, all.begin() + (i + 1) * parts);
    };
    return {block(0), block(1), block(2)};
  }
  p.q = project(g, prefix + ".q", {x}, rows, h, h, parts, shared(weights_prefix, ".q"), d);
  p.k = project(g, prefix + ".k", {x}, rows, h, h, parts, shared(weights_prefix, ".k"), d);
  p.v = project(g, prefix + ".v", {x}, rows, h, h, parts, shared(weights_prefix, ".v"), d);
  return p;
}

std::vector<ValueId> attend(layers::LayerGraph& g, const std::string& prefix, const Projections& p,
                            double batch, double query_len, double key_len, const Dimensions& d) {
  const double dh = static_cast<double>(d.head_dim());
  // One branch per head, or one op over batch x heads.
  const double count = d.head_branches ? batch : batch * static_cast<double>(d.heads);
  // Eager attention's torch.matmul reshapes the [batch, heads, seq, d] views of the projections to
  // [batch x heads, seq, d], which copies them when there are several sequences of several tokens (the view
  // cannot merge those two dims); K and V read from a cache are already contiguous. A copy's gradient is a
  // copy back. The contexts are copied back to [tokens, hidden] (permute, then contiguous()).
  const bool split_copies = d.eager_attention && batch > 1 && query_len > 1;
  const auto copied = [&](const std::string& name, ValueId v, bool copy) {
    return copy ? g.elementwise(name, {v}, g.bytes(v) / g.elem(), 0, layers::Saved::Nothing) : v;
  };
  std::vector<ValueId> context;
  for (std::size_t i = 0; i < p.q.size(); ++i) {
    const std::string head = d.head_branches ? prefix + ".head" + std::to_string(i) : prefix;
    const ValueId q = copied(head + ".split_q", p.q[i], split_copies);
    const ValueId k = copied(head + ".split_k", p.k[i], split_copies && key_len == query_len);
    const ValueId v = copied(head + ".split_v", p.v[i], split_copies && key_len == query_len);
    ValueId scores = g.matmul(head + ".scores", q, k, count, query_len, key_len, dh, true);
    const double elements = count * query_len * key_len;
    if (d.eager_attention) {
      scores = g.elementwise(head + ".scale", {scores}, elements, 1, layers::Saved::Nothing);
      scores = g.elementwise(head + ".mask", {scores}, elements, 1, layers::Saved::Nothing);
    }
    ValueId probs = g.softmax(head + ".softmax", scores, count * query_len, key_len);
    probs = dropout(g, head + ".attn_dropout", probs, elements, d);
    context.push_back(g.matmul(head + ".context", probs, v, count, query_len, dh, key_len, false));
  }
  if (!d.eager_attention || d.heads == 1 || query_len == 1) return context;
  const double elements = batch * query_len * static_cast<double>(d.hidden);
  return {g.elementwise(prefix + ".merge_heads", context, elements, 0, layers::Saved::Nothing)};
}

ValueId attention_output(layers::LayerGraph& g, const std::string& prefix,
                         const std::vector<ValueId>& context, double rows, const Dimensions& d,
                         const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden);
  const ValueId y = project(g, prefix + ".out", context, rows, h, h, 1, shared(weights_prefix, ".out"), d)[0];
  return dropout(g, prefix + ".dropout", y, rows * h, d);
}

ValueId feed_forward(layers::LayerGraph& g, const std::string& prefix, ValueId x, double rows,
                     const Dimensions& d, const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden), inner = static_cast<double>(d.inner);
  ValueId y = project(g, prefix + ".fc1", {x}, rows, h, inner, 1, shared(weights_prefix, ".fc1"), d)[0];
  y = gelu(g, prefix + ".gelu", y, rows * inner, d);
  y = project(g, prefix + ".fc2", {y}, rows, inner, h, 1, shared(weights_prefix, ".fc2"), d)[0];
  return dropout(g, prefix + ".dropout", y, rows * h, d);
}

} // namespace hs::transformer
