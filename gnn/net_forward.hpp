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

struct NetWeights {
  Dense op_in, pair_in, pair_head_in, head, prio;
  std::vector<Dense> self_w, pred_w, succ_w, msg_w; // one per message-passing layer
};

struct ForwardResult {
  Matrix logits;               // [ops, devices], infeasible devices at -1e9
  std::vector<float> priority; // [ops], in (-1, 1)
};

ForwardResult forward(const NetWeights& w, const GraphFeatures& f);

} // namespace hs::gnn
