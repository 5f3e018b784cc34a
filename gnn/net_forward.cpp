#include "gnn/net_forward.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace hs::gnn {

// One message-passing layer, h += relu(self(h) + pred(from predecessors) + succ(from successors)), where a
// direction's input is the mean over the op's edges of the message msg([h of the other end, edge features]).
// The message layer is linear, so pred(mean of messages) = mean of h (W_pred W_msg,h)^T + mean of edge
// features (W_pred W_msg,e)^T + W_pred b_msg (the last only where the op has such edges): the layer is one
// product of [h | mean h over predecessors | mean h over successors] with the three fused weights, made once
// per checkpoint, instead of four products over every op.
FusedLayer fuse_layer(const NetWeights& w, std::size_t l) {
  const Eigen::Index h = w.self_w[l].weight.rows();
  const Dense& m = w.msg_w[l];
  const auto msg_h = m.weight.leftCols(h);
  const auto msg_e = m.weight.rightCols(m.weight.cols() - h);
  FusedLayer f;
  f.weight.resize(h, 3 * h);
  f.weight.leftCols(h) = w.self_w[l].weight;
  f.weight.middleCols(h, h).noalias() = w.pred_w[l].weight * msg_h;
  f.weight.rightCols(h).noalias() = w.succ_w[l].weight * msg_h;
  f.bias = w.self_w[l].bias + w.pred_w[l].bias + w.succ_w[l].bias;
  f.pred_edge.noalias() = (w.pred_w[l].weight * msg_e).transpose();
  f.succ_edge.noalias() = (w.succ_w[l].weight * msg_e).transpose();
  f.pred_msg.noalias() = m.bias * w.pred_w[l].weight.transpose();
  f.succ_msg.noalias() = m.bias * w.succ_w[l].weight.transpose();
  return f;
}

namespace {

// One direction of the edges into each op (from the op at `from` to the op at `into`): the mean of their
// features and whether the op has any. Neither depends on h, so they are made once per pass.
struct EdgeSide {
  const std::vector<long>& from;
  const std::vector<long>& into;
  const std::vector<float>& degree;
  Matrix mean_edge;
  std::vector<unsigned char> has;
};

EdgeSide edge_side(const std::vector<long>& from, const std::vector<long>& into,
                   const std::vector<float>& degree, const GraphFeatures& f) {
  const Eigen::Index width = edge_feature_count(), n = f.ops;
  EdgeSide side{from, into, degree, Matrix::Zero(n, width),
                std::vector<unsigned char>(static_cast<std::size_t>(n), 0)};
  for (std::size_t k = 0; k < from.size(); ++k) {
    for (Eigen::Index j = 0; j < width; ++j)
      side.mean_edge(into[k], j) += f.edge[k * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)];
    side.has[static_cast<std::size_t>(into[k])] = 1;
  }
  for (Eigen::Index i = 0; i < n; ++i)
    side.mean_edge.row(i) /= degree[static_cast<std::size_t>(i)];
  return side;
}

// Into each op (rows of `mean_h`), the mean over its edges of `side` of the other end's h.
template <class Block> void mean_over_edges(const Matrix& h, const EdgeSide& side, Block mean_h) {
  mean_h.setZero();
  for (std::size_t k = 0; k < side.from.size(); ++k)
    mean_h.row(side.into[k]) += h.row(side.from[k]);
  for (Eigen::Index i = 0; i < h.rows(); ++i)
    mean_h.row(i) /= side.degree[static_cast<std::size_t>(i)];
}

// Buffers kept across layers: on a large graph, allocating [ops, hidden] temporaries per layer cost more than
// the products.
struct LayerBuffers {
  Matrix stacked, update;
};

void message_layer(const FusedLayer& w, const EdgeSide& preds, const EdgeSide& succs, Matrix& h,
                   LayerBuffers& b) {
  const Eigen::Index n = h.rows(), hidden = h.cols();
  b.stacked.resize(n, 3 * hidden);
  b.stacked.leftCols(hidden) = h;
  mean_over_edges(h, preds, b.stacked.middleCols(hidden, hidden));
  mean_over_edges(h, succs, b.stacked.rightCols(hidden));
  b.update.noalias() = b.stacked * w.weight.transpose();
  b.update.rowwise() += w.bias;
  b.update.noalias() += preds.mean_edge * w.pred_edge;
  b.update.noalias() += succs.mean_edge * w.succ_edge;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (preds.has[static_cast<std::size_t>(i)]) b.update.row(i) += w.pred_msg;
    if (succs.has[static_cast<std::size_t>(i)]) b.update.row(i) += w.succ_msg;
  }
  h += b.update.cwiseMax(0.0f);
}

// The head's score of every (op, device): head(relu(pair_head_in(pair) + h)). Devices whose pair features
// are the same bits (identical devices, such as a node's eight GPUs) get the same score, so each op's
// distinct rows are gathered first and multiplied in one product; a row's product does not depend on the
// rows beside it, so the scores are bit-identical to scoring every row. `h_biased` is h plus pair_head_in's
// bias.
Matrix pair_scores(const NetWeights& w, const Eigen::Map<const Matrix>& pair, const Matrix& h_biased,
                   Eigen::Index devices) {
  const Eigen::Index n = h_biased.rows(), width = pair.cols();
  const auto row_bytes = static_cast<std::size_t>(width) * sizeof(float);
  Matrix distinct(n * devices, width);
  std::vector<Eigen::Index> owner;                                          // per distinct row: its op
  std::vector<Eigen::Index> same_as(static_cast<std::size_t>(n * devices)); // per pair: its distinct row
  owner.reserve(static_cast<std::size_t>(n * devices));
  Eigen::Index kept = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index first = kept;
    for (Eigen::Index k = 0; k < devices; ++k) {
      const float* row = pair.data() + (i * devices + k) * width;
      Eigen::Index j = first;
      while (j < kept && std::memcmp(&distinct(j, 0), row, row_bytes) != 0)
        ++j;
      if (j == kept) {
        distinct.row(kept++) = pair.row(i * devices + k);
        owner.push_back(i);
      }
      same_as[static_cast<std::size_t>(i * devices + k)] = j;
    }
  }
  Matrix hidden(kept, w.pair_head_in.weight.rows());
  hidden.noalias() = distinct.topRows(kept) * w.pair_head_in.weight.transpose();
  const Eigen::RowVectorXf head = w.head.weight.row(0);
  const float head_bias = w.head.bias(0);
  Eigen::VectorXf distinct_scores(kept);
  for (Eigen::Index r = 0; r < kept; ++r)
    distinct_scores(r) =
        (hidden.row(r) + h_biased.row(owner[static_cast<std::size_t>(r)])).cwiseMax(0.0f).dot(head);
  Matrix scores(n, devices);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < devices; ++k)
      scores(i, k) = distinct_scores(same_as[static_cast<std::size_t>(i * devices + k)]) + head_bias;
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
  const EdgeSide preds = edge_side(f.edge_src, f.edge_dst, f.in_degree, f);
  const EdgeSide succs = edge_side(f.edge_dst, f.edge_src, f.out_degree, f);
  LayerBuffers buffers;
  for (std::size_t l = 0; l < w.self_w.size(); ++l)
    message_layer(l < w.fused.size() ? w.fused[l] : fuse_layer(w, l), preds, succs, h, buffers);
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
