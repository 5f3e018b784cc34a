#pragma once
// The placement network's forward pass without libtorch: the same layers (gnn/model.cpp) as dense float
// products on Eigen, for placing a graph. libtorch's CPU operators dispatch each of the network's few dozen
// small products through its own machinery and Debian's reference BLAS, which made one forward pass of a
// 1,735-op graph 22-35 ms; here the products are Eigen's. Training keeps libtorch (autograd); the weights
// come from its checkpoint (gnn/inference.cpp), and tests/gnn_forward_test.cpp checks both passes agree.
#include "gnn/features.hpp"

#include <Eigen/Dense>
#include <vector>

namespace hs::gnn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// y = x W^T + b, as torch::nn::Linear stores it: W is [out, in].
struct Dense {
  Matrix weight;
  Eigen::RowVectorXf bias;
  Matrix apply(const Matrix& x) const;
};

// A message-passing layer's weights with the message layer multiplied into the ones that read it
// (net_forward.cpp says how): what the pass uses.
struct FusedLayer {
  Matrix weight; // [hidden, 3 hidden]: self, pred after msg, succ after msg
  Eigen::RowVectorXf bias;
  Matrix pred_edge, succ_edge;           // [edge features, hidden]
  Eigen::RowVectorXf pred_msg, succ_msg; // b_msg through pred and succ
};

struct NetWeights {
  Dense op_in, pair_in, pair_head_in, head, prio;
  std::vector<Dense> self_w, pred_w, succ_w, msg_w; // one per message-passing layer
  // fuse_layer of each layer, made once per checkpoint (a pass on a small graph costs about as much as
  // fusing); a layer without one is fused by the pass.
  std::vector<FusedLayer> fused;
};

FusedLayer fuse_layer(const NetWeights& w, std::size_t layer);

struct ForwardResult {
  Matrix logits;               // [ops, devices], infeasible devices at -1e9
  std::vector<float> priority; // [ops], in (-1, 1)
};

ForwardResult forward(const NetWeights& w, const GraphFeatures& f);

} // namespace hs::gnn
