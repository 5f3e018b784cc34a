#include "gnn/net_forward.hpp"

#include <cmath>

namespace hs::gnn {
namespace {

Matrix relu(Matrix x) {
  return x.cwiseMax(0.0f);
}

// The message along each edge from the op at `from`: the layer is linear in [h, edge features], so the
// h part is multiplied once per op (`hw`, h W_h^T) and gathered, not once per edge.
Matrix messages(const Matrix& hw, const Dense& m, const std::vector<long>& from, const GraphFeatures& f) {
  const auto e = static_cast<Eigen::Index>(from.size());
  const Eigen::Index width = edge_feature_count(), h = hw.cols();
  Matrix out(e, h);
  for (Eigen::Index k = 0; k < e; ++k) {
    out.row(k) = hw.row(from[static_cast<std::size_t>(k)]) + m.bias;
    for (Eigen::Index j = 0; j < width; ++j)
      out.row(k) += f.edge[static_cast<std::size_t>(k * width + j)] * m.weight.col(h + j).transpose();
  }
  return out;
}

// The mean over each op's edges of `messages`, summed into the op at `into` and divided by its degree.
Matrix mean_into(const Matrix& messages, const std::vector<long>& into, const std::vector<float>& degree,
                 Eigen::Index ops) {
  Matrix sum = Matrix::Zero(ops, messages.cols());
  for (std::size_t k = 0; k < into.size(); ++k)
    sum.row(into[k]) += messages.row(static_cast<Eigen::Index>(k));
  for (Eigen::Index i = 0; i < ops; ++i)
    sum.row(i) /= degree[static_cast<std::size_t>(i)];
  return sum;
}

} // namespace

Matrix Dense::apply(const Matrix& x) const {
  Matrix y = x * weight.transpose();
  y.rowwise() += bias;
  return y;
}

ForwardResult forward(const NetWeights& w, const GraphFeatures& f) {
  const Eigen::Index n = f.ops, d = f.devices;
  const Eigen::Map<const Matrix> op(f.op.data(), n, op_feature_count());
  const Eigen::Map<const Matrix> pair(f.pair.data(), n * d, pair_feature_count()); // row i * d + device
  // The platform as the op sees it: the mean encoding of its feasible devices.
  const Matrix pair_enc = w.pair_in.apply(pair);
  Matrix context = Matrix::Zero(n, pair_enc.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    float feasible = 0;
    for (Eigen::Index k = 0; k < d; ++k)
      if (f.ok[static_cast<std::size_t>(i * d + k)]) {
        context.row(i) += pair_enc.row(i * d + k);
        feasible += 1;
      }
    context.row(i) /= std::max(1.0f, feasible);
  }
  Matrix h = relu(w.op_in.apply(op) + context);
  for (std::size_t l = 0; l < w.self_w.size(); ++l) {
    const Dense& m = w.msg_w[l];
    const Matrix hw = h * m.weight.leftCols(h.cols()).transpose();
    const Matrix to_consumer = messages(hw, m, f.edge_src, f);
    const Matrix to_producer = messages(hw, m, f.edge_dst, f);
    const Matrix from_preds = mean_into(to_consumer, f.edge_dst, f.in_degree, n);
    const Matrix from_succs = mean_into(to_producer, f.edge_src, f.out_degree, n);
    h += relu(w.self_w[l].apply(h) + w.pred_w[l].apply(from_preds) + w.succ_w[l].apply(from_succs));
  }
  Matrix pair_h = w.pair_head_in.apply(pair); // then + the op's encoding, per (op, device)
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < d; ++k)
      pair_h.row(i * d + k) += h.row(i);
  const Matrix scores = w.head.apply(relu(std::move(pair_h))); // [n * d, 1]
  ForwardResult r;
  r.logits.resize(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < d; ++k)
      r.logits(i, k) = f.ok[static_cast<std::size_t>(i * d + k)] ? scores(i * d + k, 0) : -1e9f;
  const Matrix prio = w.prio.apply(h);
  r.priority.resize(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i)
    r.priority[static_cast<std::size_t>(i)] = std::tanh(prio(i, 0));
  return r;
}

} // namespace hs::gnn
