#include "gnn/net_forward.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace hs::gnn {
namespace {

// Into each op, the mean of the messages along its edges from the op at `from` to the op at `into`. The
// message layer is linear in [h, edge features], so its h part is multiplied once per op (`hw`, h W_h^T) and
// gathered, and messages are summed as they are made rather than stored per edge.
void mean_messages(const Matrix& hw, const Dense& m, const std::vector<long>& from,
                   const std::vector<long>& into, const std::vector<float>& degree, const GraphFeatures& f,
                   Matrix& out) {
  const Eigen::Index width = edge_feature_count(), h = hw.cols();
  out.setZero(hw.rows(), h);
  for (std::size_t k = 0; k < from.size(); ++k) {
    auto row = out.row(into[k]);
    row += hw.row(from[k]) + m.bias;
    for (Eigen::Index j = 0; j < width; ++j)
      row += f.edge[k * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)] *
             m.weight.col(h + j).transpose();
  }
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    out.row(i) /= degree[static_cast<std::size_t>(i)];
}

// One message-passing layer, h += relu(self(h) + pred(from predecessors) + succ(from successors)), in
// buffers kept across layers: on a large graph, allocating a dozen [ops, hidden] temporaries per layer
// cost more than the products.
struct LayerBuffers {
  Matrix hw, from_preds, from_succs, update;
};
void message_layer(const NetWeights& w, std::size_t l, const GraphFeatures& f, Matrix& h, LayerBuffers& b) {
  const Dense& m = w.msg_w[l];
  b.hw.noalias() = h * m.weight.leftCols(h.cols()).transpose();
  mean_messages(b.hw, m, f.edge_src, f.edge_dst, f.in_degree, f, b.from_preds);
  mean_messages(b.hw, m, f.edge_dst, f.edge_src, f.out_degree, f, b.from_succs);
  b.update.noalias() = h * w.self_w[l].weight.transpose();
  b.update.noalias() += b.from_preds * w.pred_w[l].weight.transpose();
  b.update.noalias() += b.from_succs * w.succ_w[l].weight.transpose();
  b.update.rowwise() += w.self_w[l].bias + w.pred_w[l].bias + w.succ_w[l].bias;
  h += b.update.cwiseMax(0.0f);
}

// The head's score of every (op, device): head(relu(pair_head_in(pair) + h)), op by op, so the [ops x
// devices, hidden] activations never exist at once (they were a few MB on a large graph, most of the pass's
// time). Devices whose pair features are the same bits (identical devices, such as a node's eight GPUs) get
// the same score, so each op scores its distinct rows only; a row's product does not depend on the rows
// beside it, so the scores are bit-identical to scoring every row. `h_biased` is h plus pair_head_in's bias.
Matrix pair_scores(const NetWeights& w, const Eigen::Map<const Matrix>& pair, const Matrix& h_biased,
                   Eigen::Index devices) {
  const Eigen::Index n = h_biased.rows(), width = pair.cols();
  const Matrix w_t = w.pair_head_in.weight.transpose(); // [pair features, hidden]
  const Eigen::RowVectorXf head = w.head.weight.row(0);
  const float head_bias = w.head.bias(0);
  Matrix scores(n, devices);
  Matrix distinct(devices, width), block(devices, w_t.cols());
  Eigen::VectorXf distinct_scores(devices);
  std::vector<Eigen::Index> same_as(static_cast<std::size_t>(devices));
  const auto row_bytes = static_cast<std::size_t>(width) * sizeof(float);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index kept = 0;
    for (Eigen::Index k = 0; k < devices; ++k) {
      const float* row = pair.data() + (i * devices + k) * width;
      Eigen::Index j = 0;
      while (j < kept && std::memcmp(&distinct(j, 0), row, row_bytes) != 0)
        ++j;
      if (j == kept) distinct.row(kept++) = pair.row(i * devices + k);
      same_as[static_cast<std::size_t>(k)] = j;
    }
    auto rows = block.topRows(kept);
    rows.noalias() = distinct.topRows(kept) * w_t;
    rows.rowwise() += h_biased.row(i);
    distinct_scores.head(kept).noalias() = rows.cwiseMax(0.0f) * head.transpose();
    for (Eigen::Index k = 0; k < devices; ++k)
      scores(i, k) = distinct_scores(same_as[static_cast<std::size_t>(k)]) + head_bias;
  }
  return scores;
}

} // namespace

Matrix Dense::apply(const Matrix& x) const {
  Matrix y = x * weight.transpose();
  y.rowwise() += bias;
  return y;
}

ForwardResult forward(const NetWeights& w, const GraphFeatures& f) {
  const Eigen::Index n = f.ops, d = f.devices, width = pair_feature_count();
  const Eigen::Map<const Matrix> op(f.op.data(), n, op_feature_count());
  const Eigen::Map<const Matrix> pair(f.pair.data(), n * d, width); // row i * d + device
  // The platform as the op sees it: the mean encoding of its feasible devices. The encoding is affine, so
  // the mean of the encodings is the encoding of the mean features: one product per op, not per pair.
  Matrix mean_pair = Matrix::Zero(n, width);
  Eigen::VectorXf any_feasible = Eigen::VectorXf::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    float feasible = 0;
    for (Eigen::Index k = 0; k < d; ++k)
      if (f.ok[static_cast<std::size_t>(i * d + k)]) {
        mean_pair.row(i) += pair.row(i * d + k);
        feasible += 1;
      }
    if (feasible > 0) {
      mean_pair.row(i) /= feasible;
      any_feasible(i) = 1;
    }
  }
  Matrix context = mean_pair * w.pair_in.weight.transpose();
  context += any_feasible * w.pair_in.bias; // an op with no feasible device sees no platform (zeros)
  Matrix h = (w.op_in.apply(op) + context).cwiseMax(0.0f);
  LayerBuffers buffers;
  for (std::size_t l = 0; l < w.self_w.size(); ++l)
    message_layer(w, l, f, h, buffers);
  ForwardResult r;
  r.logits = pair_scores(w, pair, h + w.pair_head_in.bias.replicate(n, 1), d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < d; ++k)
      if (!f.ok[static_cast<std::size_t>(i * d + k)]) r.logits(i, k) = -1e9f;
  const Matrix prio = w.prio.apply(h);
  r.priority.resize(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i)
    r.priority[static_cast<std::size_t>(i)] = std::tanh(prio(i, 0));
  return r;
}

} // namespace hs::gnn
