#include "workloads/transformer.hpp"

namespace hs::transformer {

using layers::ValueId;

namespace {
std::string shared(const std::string& weights_prefix, const std::string& suffix) {
  return weights_prefix.empty() ? "" : weights_prefix + suffix;
}
} // namespace

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
    // The 1/sqrt(d) scale and the mask are folded into the softmax, as fused kernels do.
    const ValueId scores = g.matmul(head + ".scores", p.q[i], p.k[i], count, query_len, key_len, dh);
    const ValueId probs = g.softmax(head + ".softmax", scores, count * query_len, key_len);
    context.push_back(g.matmul(head + ".context", probs, p.v[i], count, query_len, dh, key_len));
  }
  return context;
}

ValueId attention_output(layers::LayerGraph& g, const std::string& prefix,
                         const std::vector<ValueId>& context, double rows, const Dimensions& d,
                         const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden);
  return g.linear_parts(prefix + ".out", context, rows, h, h, true, 1, shared(weights_prefix, ".out"))[0];
}

ValueId feed_forward(layers::LayerGraph& g, const std::string& prefix, ValueId x, double rows,
                     const Dimensions& d, const std::string& weights_prefix) {
  const auto h = static_cast<double>(d.hidden), inner = static_cast<double>(d.inner);
  ValueId y = g.linear(prefix + ".fc1", x, rows, h, inner, true, shared(weights_prefix, ".fc1"));
  y = g.elementwise(prefix + ".gelu", {y}, rows * inner, kGeluFlops, layers::Saved::Inputs);
  return g.linear(prefix + ".fc2", y, rows, inner, h, true, shared(weights_prefix, ".fc2"));
}

} // namespace hs::transformer
