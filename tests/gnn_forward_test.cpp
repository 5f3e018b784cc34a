// The placement network's Eigen forward pass (gnn/net_forward.hpp), which places graphs, against the
// libtorch forward it was trained with (gnn/model.cpp), on the shipped checkpoint and on fresh weights.
#include "gnn/checkpoint.hpp"
#include "gnn/inference.hpp"
#include "gnn/proposal.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

namespace {

void gnn_forward_agree(hs::gnn::PlacementNet& net, const hs::CostModel& cost) {
  const hs::gnn::GraphFeatures f = hs::gnn::graph_features(cost);
  torch::NoGradGuard no_grad;
  const hs::gnn::NetOutput torch_out = net->forward(hs::gnn::to_tensors(f));
  const auto logits = torch_out.logits.contiguous();
  const auto priority = torch_out.priority.contiguous();
  const hs::gnn::ForwardResult eigen_out = hs::gnn::forward(hs::gnn::weights_of(net), f);
  REQUIRE(eigen_out.logits.rows() == f.ops);
  REQUIRE(eigen_out.logits.cols() == f.devices);
  double worst = 0, worst_priority = 0, largest_priority = 0;
  int argmax_differs = 0;
  for (int i = 0; i < f.ops; ++i) {
    for (int k = 0; k < f.devices; ++k)
      worst =
          std::max(worst, std::abs(static_cast<double>(eigen_out.logits(i, k) - logits[i][k].item<float>())));
    Eigen::Index best = 0;
    eigen_out.logits.row(i).maxCoeff(&best);
    argmax_differs += best != logits[i].argmax().item<long>();
    const double torch_priority = priority[i].item<float>();
    worst_priority =
        std::max(worst_priority, std::abs(eigen_out.priority[static_cast<std::size_t>(i)] - torch_priority));
    largest_priority = std::max(largest_priority, std::abs(torch_priority));
  }
  CHECK(worst < 1e-3); // float32 sums in another order; infeasible devices are -1e9 in both
  // Against the priorities' own scale (some are 1e-5, where an absolute 1e-4 would accept anything).
  REQUIRE(largest_priority > 0);
  CHECK(worst_priority <= 1e-4 * largest_priority);
  CHECK(argmax_differs == 0);
}

} // namespace

TEST_CASE("gnn forward: the Eigen pass gives libtorch's logits and priorities") {
  auto shipped = hs::gnn::load_checkpoint(hs::gnn::shipped_checkpoint_path());
  for (const char* workload : {"random:ops=60", "bert-base:seq=32", "resnet18:image=64"})
    for (const char* platform : {"hetero-server", "multi-gpu-node", "workstation"}) {
      CAPTURE(workload);
      CAPTURE(platform);
      const hs::Graph g = hs::load_workload(workload, 5);
      const hs::Platform p = hs::load_platform(platform);
      gnn_forward_agree(shipped.net, hs::CostModel(g, p));
    }
  hs::gnn::make_deterministic(11); // fresh weights of another shape: nothing tied to the shipped one
  hs::gnn::PlacementNet fresh(hs::gnn::NetShape{hs::gnn::op_feature_count(), hs::gnn::pair_feature_count(),
                                                hs::gnn::edge_feature_count(), 16, 2});
  const hs::Graph g = hs::load_workload("random:ops=40", 2);
  gnn_forward_agree(fresh, hs::CostModel(g, hs::load_platform("hetero-server")));
}
