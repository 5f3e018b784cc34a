// gnn-placement's shortlist (gnn/proposal.hpp): the network narrows each op to its k most probable
// devices and the list scheduler picks the earliest finish among them.
#include "gnn/proposal.hpp"
#include "policies/policy_config.hpp"
#include "policies/policy_runner.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

namespace {

// Op op's k most probable feasible devices under the proposal.
std::vector<hs::DeviceId> gnn_most_probable(const hs::CostModel& cost, const hs::gnn::Proposal& p,
                                            hs::OpId op, std::size_t k) {
  std::vector<hs::DeviceId> ids;
  const auto& prob = p.probability.at(static_cast<std::size_t>(op));
  for (std::size_t d = 0; d < prob.size(); ++d)
    if (cost.feasible(op, static_cast<hs::DeviceId>(d)) && prob[d] > 0)
      ids.push_back(static_cast<hs::DeviceId>(d));
  std::stable_sort(ids.begin(), ids.end(), [&](hs::DeviceId a, hs::DeviceId b) {
    return prob[static_cast<std::size_t>(a)] > prob[static_cast<std::size_t>(b)];
  });
  ids.resize(std::min(k, ids.size()));
  return ids;
}

} // namespace

TEST_CASE("gnn shortlist: one device is the network's own, and every op lands among its k most probable") {
  const hs::Graph g = hs::load_workload("random:ops=60", 11);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  const auto proposal = hs::gnn::propose(cost, hs::gnn::shipped_checkpoint_path());
  REQUIRE(proposal.probability.size() == static_cast<std::size_t>(g.op_count()));
  for (std::size_t i = 0; i < proposal.probability.size(); ++i) { // argmax of the same forward pass
    const auto& row = proposal.probability[i];
    CHECK(std::max_element(row.begin(), row.end()) - row.begin() == proposal.device[i]);
  }
  const hs::Plan one = hs::gnn::plan_for_shortlist(cost, proposal, 1, "gnn-placement", false);
  CHECK(one.device == hs::gnn::plan_for_proposal(cost, proposal, "gnn-placement", false).device);
  const hs::Plan two = hs::gnn::plan_for_shortlist(cost, proposal, 2, "gnn-placement", false);
  int moved = 0;
  for (hs::OpId op = 0; op < g.op_count(); ++op) {
    const auto allowed = gnn_most_probable(cost, proposal, op, 2);
    CHECK(std::find(allowed.begin(), allowed.end(), two.device[static_cast<std::size_t>(op)]) !=
          allowed.end());
    moved += two.device[static_cast<std::size_t>(op)] != one.device[static_cast<std::size_t>(op)];
  }
  CHECK(moved > 0); // the list scheduler did choose somewhere
}

TEST_CASE("gnn-placement reads its shortlist from the policy configuration, and refuses a bad one") {
  const hs::Graph g = hs::load_workload("random:ops=60", 11);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  const auto dir = std::filesystem::temp_directory_path() / ("gnn-shortlist-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto config = [&](const std::string& body) {
    const auto file = (dir / "policies.json").string();
    std::ofstream(file) << R"({"gnn-placement": )" << body << "}";
    return hs::load_policy_config(file);
  };
  hs::PolicyContext ctx{cost};
  ctx.config = config(R"({"shortlist": 2})");
  const hs::Plan configured = hs::execute_policy("gnn-placement", ctx, {}, "evaluator").plan;
  const auto proposal = hs::gnn::propose(cost, hs::gnn::shipped_checkpoint_path());
  CHECK(configured.device == hs::gnn::plan_for_shortlist(cost, proposal, 2, "gnn-placement", true).device);
  ctx.config = config(R"({"shortlist": 0})");
  CHECK_THROWS_WITH(hs::execute_policy("gnn-placement", ctx, {}, "evaluator"),
                    doctest::Contains("shortlist"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gnn shortlist: devices the network cannot tell apart are one choice") {
  // multi-gpu-node's eight A100s have the same figures, so the network gives them the same probability: the
  // shortlist takes all of them or none, and the list scheduler spreads the ops over them.
  const hs::Graph g = hs::load_workload("random:ops=60", 11);
  const hs::Platform p = hs::load_platform("multi-gpu-node");
  const hs::CostModel cost(g, p);
  const auto proposal = hs::gnn::propose(cost, hs::gnn::shipped_checkpoint_path());
  std::vector<hs::DeviceId> gpus;
  for (hs::DeviceId d = 0; d < p.device_count(); ++d)
    if (p.devices[static_cast<std::size_t>(d)].kind == "gpu") gpus.push_back(d);
  REQUIRE(gpus.size() == 8);
  for (hs::OpId op = 0; op < g.op_count(); ++op) {
    CAPTURE(op);
    const auto& prob = proposal.probability[static_cast<std::size_t>(op)];
    const auto listed = hs::gnn::shortlisted_devices(cost, op, prob, 1);
    for (hs::DeviceId d : gpus) {
      CHECK(prob[static_cast<std::size_t>(d)] == prob[static_cast<std::size_t>(gpus[0])]);
      CHECK(listed[static_cast<std::size_t>(d)] == listed[static_cast<std::size_t>(gpus[0])]);
    }
    const auto top = std::max_element(prob.begin(), prob.end()) - prob.begin();
    CHECK(listed[static_cast<std::size_t>(top)]);
  }
  const hs::Plan one = hs::gnn::plan_for_shortlist(cost, proposal, 1, "gnn-placement", false);
  std::set<hs::DeviceId> used_gpus;
  for (hs::DeviceId d : one.device)
    if (p.devices[static_cast<std::size_t>(d)].kind == "gpu") used_gpus.insert(d);
  CHECK(used_gpus.size() > 1); // the first of equal logits alone would put every GPU op on gpu0
}
