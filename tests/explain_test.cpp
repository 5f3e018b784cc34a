// Explain mode: the recorded ranks and decisions reproduce the published HEFT example, a hand-computed
// PEFT example, and the plan the policy returns; the observer changes no plan.
#include "policies/explain.hpp"
#include "policy_test_support.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/graph_builder.hpp"
#include "sim/graph_io.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <map>

using namespace hs;

namespace {

Platform textbook_platform() {
  return load_platform(test::source_dir() + "/platforms/textbook-3p.json");
}

Graph topcuoglu_graph() {
  return load_graph(test::source_dir() + "/workloads/examples/topcuoglu2002.json");
}

const std::string& name_of(const Platform& p, DeviceId d) {
  return p.devices[static_cast<std::size_t>(d)].name;
}

// The recorded choices are the plan's devices, and the recorded times the plan's timeline (the analytic
// engine replays a classic plan exactly as the list scheduler booked it; on textbook edges the evaluator
// does too).
void check_explanation_matches_plan(const ExplainedPlan& x, const CostModel& cost) {
  const Execution timeline =
      x.explanation.contention ? run_contention(x.plan, cost) : run_analytic(x.plan, cost);
  REQUIRE(x.explanation.decisions.size() == static_cast<std::size_t>(cost.graph().op_count()));
  for (const auto& d : x.explanation.decisions) {
    CAPTURE(cost.graph().op(d.op).name);
    CHECK(d.chosen == x.plan.device[static_cast<std::size_t>(d.op)]);
    CHECK(d.start == doctest::Approx(timeline.ops[static_cast<std::size_t>(d.op)].start).epsilon(1e-12));
    CHECK(d.finish == doctest::Approx(timeline.ops[static_cast<std::size_t>(d.op)].end).epsilon(1e-12));
  }
  CHECK(x.explanation.makespan() == doctest::Approx(timeline.makespan).epsilon(1e-12));
}

} // namespace

TEST_CASE("explain: HEFT on the Topcuoglu 2002 example gives the paper's ranks, order and schedule") {
  const Platform p = textbook_platform();
  const Graph g = topcuoglu_graph();
  const CostModel cost(g, p);
  // Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002: upward ranks (Table in Fig. 2's text), the order by
  // decreasing rank, and the HEFT schedule of Fig. 4(a) (processor, start, finish).
  const std::vector<std::string> order = {"n1", "n3", "n4", "n2", "n5", "n6", "n9", "n7", "n8", "n10"};
  const std::map<std::string, double> rank = {
      {"n1", 108},     {"n2", 77},      {"n3", 80},      {"n4", 80},      {"n5", 69},
      {"n6", 63.3333}, {"n7", 42.6667}, {"n8", 35.6667}, {"n9", 44.3333}, {"n10", 14.6667}};
  struct Slot {
    const char* device;
    double start, finish;
  };
  const std::map<std::string, Slot> schedule = {
      {"n1", {"P3", 0, 9}},   {"n3", {"P3", 9, 28}},  {"n4", {"P2", 18, 26}}, {"n2", {"P1", 27, 40}},
      {"n5", {"P3", 28, 38}}, {"n6", {"P2", 26, 42}}, {"n9", {"P2", 56, 68}}, {"n7", {"P3", 38, 49}},
      {"n8", {"P1", 57, 62}}, {"n10", {"P2", 73, 80}}};
  for (const char* policy : {"heft-classic", "heft"}) {
    CAPTURE(policy);
    const auto x = plan_with_explanation(policy, {cost, 0});
    REQUIRE(x);
    const Explanation& e = x->explanation;
    CHECK(e.contention == (std::string(policy) == "heft"));
    CHECK(e.rules.rank_name == "upward rank");
    REQUIRE(e.order.size() == order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      const OpId o = e.order[i];
      const std::string& name = g.op(o).name;
      CHECK(name == order[i]);
      CHECK(e.rank[static_cast<std::size_t>(o)] == doctest::Approx(rank.at(name)).epsilon(1e-5));
      const auto& d = e.decisions[i];
      CHECK(d.op == o); // decisions follow the priority order
      CHECK(name_of(p, d.chosen) == schedule.at(name).device);
      CHECK(d.start == schedule.at(name).start);
      CHECK(d.finish == schedule.at(name).finish);
    }
    CHECK(e.makespan() == 80.0);
    // Step 1: n1 can start at 0 anywhere and finishes at its own time there; P3's 9 is the earliest.
    const auto& first = e.decisions[0];
    REQUIRE(first.candidates.size() == 3);
    CHECK(first.candidates[0].finish == 14.0);
    CHECK(first.candidates[1].finish == 16.0);
    CHECK(first.candidates[2].finish == 9.0);
    CHECK(first.tied.empty());
    check_explanation_matches_plan(*x, cost);
  }
}

TEST_CASE("explain: PEFT's optimistic cost table and schedule on a hand-computed example") {
  // Four tasks on P1..P3, times (P1, P2, P3): a (4, 6, 5), b (8, 3, 6), c (5, 7, 2), d (3, 6, 4); edges
  // a->b 4, a->c 3, b->d 5, c->d 2. OCT(i, p) = max_j min_q [OCT(j, q) + w(j, q) + (q != p ? c(i, j) : 0)]:
  //   d (exit): 0, 0, 0
  //   b: min over q of [OCT(d,q) + w(d,q) + 5 if q != p] = p=P1: min(3, 6+5, 4+5) = 3; P2: min(8, 6, 9) = 6;
  //      P3: min(8, 11, 4) = 4
  //   c: the same with c(c, d) = 2: P1: min(3, 8, 6) = 3; P2: min(5, 6, 6) = 5; P3: min(5, 8, 4) = 4
  //   a: via b, OCT(b,q) + w(b,q) = 11, 9, 10 plus 4 off p: P1: min(11, 13, 14) = 11; P2: min(15, 9, 14) = 9;
  //      P3: min(15, 13, 10) = 10. Via c, OCT(c,q) + w(c,q) = 8, 12, 6 plus 3 off p: P1: 8, P2: 9, P3: 6.
  //      Max of the two: 11, 9, 10.
  // rank_oct (row means): a 10, b 13/3, c 4, d 0; ready list order a, b, c, d.
  // Decisions, O_EFT = EFT + OCT: a: 4+11, 6+9, 5+10 = 15 each, a tie, kept on P1 (first in platform order);
  //   b: P1 4..12 (O_EFT 15), P2 8..11 (17), P3 8..14 (18) -> P1; c: P1 12..17 (20), P2 7..14 (19),
  //   P3 7..9 (13) -> P3; d: P1 ready max(12, 9+2) 12..15 (15), P2 17..23, P3 17..21 -> P1. Length 15.
  const Platform p = textbook_platform();
  GraphBuilder b("peft-hand");
  auto a = b.op("a").time_on("P1", 4).time_on("P2", 6).time_on("P3", 5);
  auto bb = b.op("b").time_on("P1", 8).time_on("P2", 3).time_on("P3", 6);
  auto c = b.op("c").time_on("P1", 5).time_on("P2", 7).time_on("P3", 2);
  auto d = b.op("d").time_on("P1", 3).time_on("P2", 6).time_on("P3", 4);
  a.feeds_in(bb, 4);
  a.feeds_in(c, 3);
  bb.feeds_in(d, 5);
  c.feeds_in(d, 2);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const std::vector<std::vector<double>> oct = {{11, 9, 10}, {3, 6, 4}, {3, 5, 4}, {0, 0, 0}};
  const std::vector<double> rank_oct = {10, 13.0 / 3, 4, 0};
  struct Slot {
    const char* device;
    double start, finish, o_eft;
  };
  const std::vector<Slot> schedule = {
      {"P1", 0, 4, 15}, {"P1", 4, 12, 15}, {"P3", 7, 9, 13}, {"P1", 12, 15, 15}};
  for (const char* policy : {"peft-classic", "peft"}) {
    CAPTURE(policy);
    const auto x = plan_with_explanation(policy, {cost, 0});
    REQUIRE(x);
    const Explanation& e = x->explanation;
    CHECK(e.rules.rank_name == "rank_oct");
    for (OpId o = 0; o < 4; ++o) {
      CHECK(e.rank[static_cast<std::size_t>(o)] == doctest::Approx(rank_oct[static_cast<std::size_t>(o)]));
      for (DeviceId q = 0; q < 3; ++q)
        CHECK(e.oct[static_cast<std::size_t>(o * 3 + q)] ==
              oct[static_cast<std::size_t>(o)][static_cast<std::size_t>(q)]);
    }
    CHECK(e.order == std::vector<OpId>{0, 1, 2, 3});
    for (std::size_t i = 0; i < 4; ++i) {
      const auto& dec = e.decisions[i];
      CHECK(name_of(p, dec.chosen) == schedule[i].device);
      CHECK(dec.start == schedule[i].start);
      CHECK(dec.finish == schedule[i].finish);
      CHECK(dec.candidates[static_cast<std::size_t>(dec.chosen)].score == schedule[i].o_eft);
    }
    // Step 1 is a three-way tie at O_EFT 15; the loop keeps the first device in platform order.
    CHECK(e.decisions[0].tied == std::vector<DeviceId>{0, 1, 2});
    CHECK(tie_text(e, e.decisions[0], p).find("P1, P2 and P3 tie at O_EFT 15; P1 is kept") == 0);
    for (std::size_t i = 1; i < 4; ++i)
      CHECK(e.decisions[i].tied.empty());
    CHECK(e.makespan() == 15.0);
    check_explanation_matches_plan(*x, cost);
  }
}

namespace {

// Each explainable policy, recorded and not: the same plan, and the recorded choices are the plan's devices.
void check_recording_changes_no_plan(const CostModel& cost) {
  const Platform& p = cost.platform();
  const Graph& g = cost.graph();
  for (const auto& name : explainable_policies()) {
    CAPTURE(name);
    const Plan plain = policy_by_name(name).plan({cost, 0});
    const auto x = plan_with_explanation(name, {cost, 0});
    REQUIRE(x);
    CHECK(x->plan.device == plain.device);
    CHECK(x->plan.stream == plain.stream);
    CHECK(x->plan.queues == plain.queues);
    const Explanation& e = x->explanation;
    CHECK(e.contention == (name.find("-classic") == std::string::npos));
    REQUIRE(e.decisions.size() == static_cast<std::size_t>(g.op_count()));
    const bool replaced = std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) {
      return n.find("was replaced") != std::string::npos;
    });
    for (const auto& d : e.decisions) {
      REQUIRE(d.candidates.size() == static_cast<std::size_t>(p.device_count()));
      // The chosen candidate has the lowest score, and is the first device with it.
      const auto& chosen = d.candidates[static_cast<std::size_t>(d.chosen)];
      CHECK(chosen.start == d.start);
      CHECK(chosen.finish == d.finish);
      for (const auto& c : d.candidates)
        CHECK((c.score > chosen.score || (c.score == chosen.score && c.device >= d.chosen)));
      if (!replaced) CHECK(d.chosen == x->plan.device[static_cast<std::size_t>(d.op)]);
    }
    if (!e.contention) check_explanation_matches_plan(*x, cost);
  }
}

} // namespace

// Unrecorded, the list schedule skips devices whose lower bound cannot win (policies/heft.cpp); recorded, it
// tries every one. The plans must be the same, also where many devices are alike and share links.
TEST_CASE("explain: recording changes no plan, and the recorded choices are the plan's devices") {
  for (const char* platform : {"hetero-server", "multi-gpu-node", "dgx-a100-cluster"}) {
    CAPTURE(platform);
    const Platform p = load_platform(platform);
    const Graph g = load_workload("random:ops=80,precision=fp16", 3);
    const CostModel cost(g, p);
    check_recording_changes_no_plan(cost);
  }
}

TEST_CASE("explain: exactly the listed static policies explain themselves") {
  const Platform p = textbook_platform();
  const Graph g = topcuoglu_graph();
  const CostModel cost(g, p);
  const auto& listed = explainable_policies();
  for (const auto& policy : planning_policies()) {
    CAPTURE(policy.name());
    const bool is_listed = std::find(listed.begin(), listed.end(), policy.name()) != listed.end();
    CHECK(plan_with_explanation(policy.name(), {cost, 0}).has_value() == is_listed);
  }
  CHECK_FALSE(plan_with_explanation("eager", {cost, 0}).has_value()); // run-time
  CHECK(nothing_to_explain("eager").find("decides at run time") != std::string::npos);
  CHECK(nothing_to_explain("greedy").find("is not a list scheduler") != std::string::npos);
}

TEST_CASE("explain: memory-aware names the devices whose memory would not hold an op") {
  // A chain of 8 layers of 600 MB of parameters each: a 2 GB gpu holds three, so later layers find the gpus
  // full and the explanation must say so for each, with the amount.
  GraphBuilder b("big-chain");
  OpHandle prev = b.op("l0").kind("gemm").flops(1e10).reads(1e6).writes(1e6).params(6e8);
  for (int k = 1; k < 8; ++k) {
    std::string name = "l"; // appended, not "l" + to_string(k): GCC 12 warns (-Wrestrict) on the latter
    name += std::to_string(k);
    auto op = b.op(name).kind("gemm").flops(1e10).reads(1e6).writes(1e6).params(6e8);
    prev.feeds(op, 1e7);
    prev = op;
  }
  const Graph g = std::move(b).build();
  const Platform p = test::cpu_two_gpus("2GB");
  const CostModel cost(g, p);
  for (const char* policy : {"memory-aware-classic", "memory-aware"}) {
    CAPTURE(policy);
    const auto x = plan_with_explanation(policy, {cost, 0});
    REQUIRE(x);
    int full = 0;
    for (const auto& d : x->explanation.decisions)
      for (const auto& c : d.candidates)
        if (c.excluded.find(" would need ") != std::string::npos) {
          ++full;
          CHECK(c.excluded.find(" of its 2 GB") != std::string::npos);
          CHECK(c.device != d.chosen);
        }
    CHECK(full > 0);
    if (std::string(policy) == "memory-aware-classic") check_explanation_matches_plan(*x, cost);
    for (const auto& d : x->explanation.decisions)
      CHECK(d.chosen == x->plan.device[static_cast<std::size_t>(d.op)]);
  }
}

TEST_CASE("explain: expert-grouping marks the devices outside an op's preferred kind") {
  // The default table sends gemm to the gpus and embedding to the cpu: each op's other devices are
  // candidates the rule rules out, shown with the finish they would have had.
  GraphBuilder b("grouped");
  auto lookup = b.op("lookup").kind("embedding").flops(1e6).reads(1e6).writes(1e6);
  auto fc = b.op("fc").kind("gemm").flops(1e10).reads(1e6).writes(1e6);
  lookup.feeds(fc, 1e6);
  const Graph g = std::move(b).build();
  const Platform p = test::cpu_two_gpus();
  const CostModel cost(g, p);
  const auto x = plan_with_explanation("expert-grouping", {cost, 0});
  REQUIRE(x);
  REQUIRE(x->explanation.decisions.size() == 2);
  for (const auto& d : x->explanation.decisions) {
    const bool gemm = g.op(d.op).kind == "gemm";
    CHECK(p.devices[static_cast<std::size_t>(d.chosen)].kind == (gemm ? "gpu" : "cpu"));
    CHECK(d.chosen == x->plan.device[static_cast<std::size_t>(d.op)]);
    for (const auto& c : d.candidates) {
      const bool preferred = p.devices[static_cast<std::size_t>(c.device)].kind == (gemm ? "gpu" : "cpu");
      CHECK(c.finish < kInfeasible); // every device could run it
      CHECK(c.excluded.empty() == preferred);
      if (!preferred) CHECK(c.excluded.find("preferred device kind") != std::string::npos);
    }
  }
}
