// The placement network's checkpoint (gnn/checkpoint.hpp) and the gnn-placement policy on every preset.
#include "gnn/checkpoint.hpp"
#include "gnn/proposal.hpp"
#include "policies/policy.hpp"
#include "sim/error.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <filesystem>

namespace {

std::string gnn_temp_path(const std::string& leaf) {
  return (std::filesystem::temp_directory_path() / ("hs_gnn_" + leaf)).string();
}

torch::Tensor gnn_logits(hs::gnn::PlacementNet& net, const hs::CostModel& cost) {
  torch::NoGradGuard no_grad;
  return net->forward(hs::gnn::to_tensors(hs::gnn::graph_features(cost))).logits;
}

hs::gnn::NetShape gnn_test_shape() {
  return {hs::gnn::op_feature_count(), hs::gnn::pair_feature_count(), hs::gnn::edge_feature_count(), 16, 2};
}

} // namespace

TEST_CASE("gnn checkpoint: a saved network loads and gives identical logits on rerun") {
  hs::gnn::make_deterministic(7);
  hs::gnn::PlacementNet net(gnn_test_shape());
  const std::string path = gnn_temp_path("roundtrip.pt");
  hs::gnn::save_checkpoint(path, net, "test command");
  const hs::Graph g = hs::load_workload("random:ops=25", 3);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  auto first = hs::gnn::load_checkpoint(path);
  auto second = hs::gnn::load_checkpoint(path);
  CHECK(first.training_command == "test command");
  const auto a = gnn_logits(first.net, cost);
  CHECK(torch::equal(a, gnn_logits(first.net, cost)));
  CHECK(torch::equal(a, gnn_logits(second.net, cost)));
  net->eval();
  CHECK(torch::equal(a, gnn_logits(net, cost)));
  // The shipped checkpoint too (models/, as the data directory holds it).
  auto shipped = hs::gnn::load_checkpoint(std::string(HS_SOURCE_DIR) + "/models/gnn-placement.pt");
  CHECK(torch::equal(gnn_logits(shipped.net, cost), gnn_logits(shipped.net, cost)));
  CHECK(shipped.training_command.rfind("hs_train_gnn ", 0) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("gnn checkpoint: other feature dimensions are refused, naming the file and the dimension") {
  torch::serialize::OutputArchive out;
  out.write("format", c10::IValue(std::string(hs::gnn::kCheckpointFormat)));
  out.write("version", c10::IValue(static_cast<int64_t>(hs::gnn::kCheckpointVersion)));
  out.write("op_features", c10::IValue(static_cast<int64_t>(hs::gnn::op_feature_count() + 1)));
  const std::string path = gnn_temp_path("wide.pt");
  out.save_to(path);
  try {
    hs::gnn::load_checkpoint(path);
    FAIL("a checkpoint for other feature dimensions loaded");
  } catch (const hs::InputError& e) {
    CHECK(e.file() == path);
    CHECK(e.place() == "op_features");
    CHECK(std::string(e.what()).find(std::to_string(hs::gnn::op_feature_count() + 1)) != std::string::npos);
  }
  CHECK_THROWS_AS(hs::gnn::load_checkpoint(gnn_temp_path("absent.pt")), hs::InputError);
  std::filesystem::remove(path);
}

TEST_CASE("gnn-placement gives a valid plan on every preset") {
  const hs::Policy& policy = hs::policy_by_name("gnn-placement");
  const hs::Graph g = hs::load_workload("random:ops=40", 5);
  for (const char* preset : {"workstation", "multi-gpu-node", "hetero-server", "dgx-a100-cluster"}) {
    CAPTURE(preset);
    const hs::Platform p = hs::load_platform(preset);
    const hs::CostModel cost(g, p);
    const hs::Plan plan = policy.plan(hs::PolicyContext{cost});
    CHECK_NOTHROW(hs::validate_plan(plan, cost));
    CHECK(plan.policy == "gnn-placement");
  }
}
