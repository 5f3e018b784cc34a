#include "workloads/transformer.hpp"

#include "sim/error.hpp"

namespace hs::transformer {

using layers::ValueId;

namespace {
std::string shared(const std::string& weights_prefix, const std::string& suffix) {
  return weights_prefix.empty() ? "" : weights_prefix + suffix;
}
} // namespace

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
  p.q = g.linear_parts(prefix + ".q", {x}, rows, h, h, true, parts, shared(weights_prefix, ".q"));
  p.k = g.linear_parts(prefix + ".k", {x}, rows, h, h, true, parts, shared(weights_prefix, ".k"));
  p.v = g.linear_parts(prefix + ".v", {x}, rows, h, h, true, parts, shared(weights_prefix, ".v"));
  return p;
}

std::vector<ValueId> attend(layers::LayerGraph& g, const std::string& prefix, const Projections& p,
                            double batch, double query_len, double key_len, const Dimensions& d) {
  const double dh = static_cast<double>(d.head_dim());
  // One branch per head, or one op over batch x heads.
  const double count = d.head_branches ? batch : batch * static_cast<double>(d.heads);
  std::vector<ValueId> context;
  for (std::size_t i = 0; i < p.q.size(); ++i) {
    const std::string head = d.head_branches ? prefix + ".head" + std::to_string(i) : prefix;
    ValueId scores = g.matmul(head + ".scores", p.q[i], p.k[i], count, query_len, key_len, dh, true);
    const double elements = count * query_len * key_len;
    if (d.eager_attention) {
      scores = g.elementwise(head + ".scale", {scores}, elements, 1, layers::Saved::Nothing);
      scores = g.elementwise(head + ".mask", {scores}, elements, 1, layers::Saved::Nothing);
    }
    ValueId probs = g.softmax(head + ".softmax", scores, count * query_len, key_len);
    probs = dropout(g, head + ".attn_dropout", probs, elements, d);
    context.push_back(g.matmul(head + ".context", probs, p.v[i], count, query_len, dh, key_len, false));
  }
  return context;
}

ValueId attention_output(layers::LayerGraph& g, const std::string& prefix,
                         const std::vector<ValueId>& context, double rows, const Dimensions& d,
                         const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden);
  const ValueId y =
      g.linear_parts(prefix + ".out", context, rows, h, h, true, 1, shared(weights_prefix, ".out"))[0];
  return dropout(g, prefix + ".dropout", y, rows * h, d);
}

ValueId feed_forward(layers::LayerGraph& g, const std::string& prefix, ValueId x, double rows,
                     const Dimensions& d, const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden), inner = static_cast<double>(d.inner);
  ValueId y = g.linear(prefix + ".fc1", x, rows, h, inner, true, shared(weights_prefix, ".fc1"));
  y = gelu(g, prefix + ".gelu", y, rows * inner, d);
  y = g.linear(prefix + ".fc2", y, rows, inner, h, true, shared(weights_prefix, ".fc2"));
  return dropout(g, prefix + ".dropout", y, rows * h, d);
}

} // namespace hs::transformer
