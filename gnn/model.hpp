#pragma once
// The placement network (libtorch): a few message-passing layers over the op graph, mean aggregation over
// predecessors and successors, then a shared head per (op, device) and a priority head per op. Included only
// by the gnn/ files that are compiled against libtorch.
#include "gnn/features.hpp"

#include <torch/torch.h>

namespace hs::gnn {

struct NetShape {
  int op_features = 0;
  int pair_features = 0;
  int edge_features = 0;
  int hidden = 32;
  int layers = 3;
};

// The features as tensors (float32, CPU).
struct FeatureTensors {
  torch::Tensor op;         // [n, F]
  torch::Tensor pair;       // [n, d, P]
  torch::Tensor mask;       // [n, d] bool: feasible
  torch::Tensor src, dst;   // [e] int64
  torch::Tensor edge;       // [e, E]
  torch::Tensor in_degree;  // [n, 1]
  torch::Tensor out_degree; // [n, 1]
};
FeatureTensors to_tensors(const GraphFeatures& f);

struct NetOutput {
  torch::Tensor logits;   // [n, d], infeasible devices at -1e9
  torch::Tensor priority; // [n], in (-1, 1): scales each op's weight in the upward rank by exp(priority)
};

class PlacementNetImpl : public torch::nn::Module {
public:
  explicit PlacementNetImpl(NetShape shape);
  NetOutput forward(const FeatureTensors& x);
  const NetShape& shape() const { return shape_; }

private:
  NetShape shape_;
  torch::nn::Linear op_in{nullptr}, pair_in{nullptr}, pair_head_in{nullptr}, head{nullptr}, prio{nullptr};
  torch::nn::ModuleList self_w, pred_w, succ_w, msg_w;
};
TORCH_MODULE(PlacementNet);

// Deterministic CPU settings: one intra-op thread, a fixed seed for the initial weights.
void make_deterministic(std::uint64_t seed);

} // namespace hs::gnn
