// A device's issue overhead (sim/host_issue.hpp): its host issues ops one after another, ahead of the
// device, so short kernels wait on the host and long ones hide it. Known answers for a chain, checked in
// every engine, and the evaluator against the replay on random graphs with issue overheads.
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/calibration.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "sim/host_issue.hpp"
#include "sim/report.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

using namespace hs;

namespace {

// One GPU of 1 Tflop/s whose host needs `issue` per op, with `streams` streams.
Platform gpu_with_issue(const std::string& issue, int streams = 1) {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "issue",
    "devices": [{"name": "gpu", "kind": "gpu", "peak": {"fp32": "1Tf"},
      "memory": {"bandwidth": "1TBps", "capacity": "16GB"}, "power": {"idle": "10W", "busy": "110W"},
      "issue_overhead": ")" +
                            issue + R"(", "streams": )" + std::to_string(streams) + "}]}",
                        "issue-platform");
}

// A chain of ops of `flops` each (1e6 flops = 1 us on the GPU), on stream 0, each with its own host issue
// time where `host_issue` gives one.
struct Chain {
  Graph g;
  Chain(const std::vector<double>& flops, const std::vector<double>& host_issue = {}) {
    GraphBuilder b("chain");
    std::vector<OpHandle> ops;
    for (std::size_t i = 0; i < flops.size(); ++i)
      ops.push_back(b.op("op" + std::to_string(i))
                        .flops(flops[i])
                        .host_issue(host_issue.empty() ? 0.0 : host_issue[i]));
    for (std::size_t i = 1; i < ops.size(); ++i)
      ops[i - 1].feeds(ops[i], 0);
    g = std::move(b).build();
  }
  Plan plan(const Platform& p) const {
    Plan plan = Plan::empty(g.op_count(), p, "manual");
    for (OpId o = 0; o < g.op_count(); ++o)
      plan.append(o, 0);
    return plan;
  }
};

// The three engines that run a static plan.
std::vector<Execution> all_engines(const Plan& plan, const CostModel& cost) {
  return {run_analytic(plan, cost), run_contention(plan, cost), run_simgrid(plan, cost)};
}

struct Expected {
  double makespan;
  OpId watched; // and when it started
  double watched_start;
  int ops_waited; // for their host, and how long in all
  double waited;
};

// A chain of `flops` on a GPU whose host needs 10 us per op, in every engine.
void check_chain(const std::vector<double>& flops, const Expected& expected) {
  const Platform p = gpu_with_issue("10us");
  const Chain chain(flops);
  const CostModel cost(chain.g, p);
  const Plan plan = chain.plan(p);
  for (const Execution& e : all_engines(plan, cost)) {
    CAPTURE(e.engine);
    CHECK(e.makespan == doctest::Approx(expected.makespan).epsilon(1e-9));
    CHECK(e.ops[static_cast<std::size_t>(expected.watched)].start ==
          doctest::Approx(expected.watched_start).epsilon(1e-9));
    const std::vector<HostWait> waits = host_waits(plan, chain.g, e);
    CHECK(waits[0].ops == expected.ops_waited);
    CHECK(waits[0].seconds == doctest::Approx(expected.waited).epsilon(1e-9));
  }
}

} // namespace

TEST_CASE("issue overhead: short kernels wait on the host, n issues then the last kernel") {
  // 2 us kernels, 10 us to issue each: every op starts as it is issued, the first after 10 us, each other
  // 8 us after the one before it ended.
  for (OpId watched = 0; watched < 5; ++watched)
    check_chain({2e6, 2e6, 2e6, 2e6, 2e6},
                {5 * 10e-6 + 2e-6, watched, 10e-6 * (watched + 1), 5, 10e-6 + 4 * 8e-6});
}

TEST_CASE("issue overhead: long kernels hide it, the first issue then the kernels back to back") {
  check_chain({30e6, 30e6, 30e6, 30e6, 30e6}, {10e-6 + 5 * 30e-6, 4, 10e-6 + 4 * 30e-6, 1, 10e-6});
}

TEST_CASE("issue overhead: short ops after a long one run on the lead the host built up") {
  // Issued at 10, 20, 30, 40, 50 us; the 50 us kernel ends at 60, when all four short ones are issued, so
  // they run back to back: 60 + 4 x 2 = 68 us. Adding the issue time to every op would say 108 us, and with
  // a host that keeps ahead it is 58 us.
  check_chain({50e6, 2e6, 2e6, 2e6, 2e6}, {68e-6, 1, 60e-6, 1, 10e-6});
  const Chain chain({50e6, 2e6, 2e6, 2e6, 2e6});
  const Platform none = gpu_with_issue("0s");
  const CostModel free_host(chain.g, none);
  CHECK(run_contention(chain.plan(none), free_host).makespan == doctest::Approx(58e-6).epsilon(1e-9));
}

TEST_CASE("issue overhead: a device's streams are issued interleaved, first ops first") {
  // Stream 0 runs a then b, stream 1 runs c: the host issues a, c, b.
  const Platform p = gpu_with_issue("10us", 2);
  GraphBuilder b("three");
  b.op("a").flops(1e6);
  b.op("b").flops(1e6);
  b.op("c").flops(1e6);
  const Graph g = std::move(b).build();
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  plan.append(0, 0, 0);
  plan.append(1, 0, 0);
  plan.append(2, 0, 1);
  const std::vector<double> issued = host_issue_times(plan, IssueCosts{{10e-6}, {}}, 3);
  REQUIRE(issued.size() == 3);
  CHECK(issued[0] == doctest::Approx(10e-6).epsilon(1e-12));
  CHECK(issued[1] == doctest::Approx(30e-6).epsilon(1e-12));
  CHECK(issued[2] == doctest::Approx(20e-6).epsilon(1e-12));
  const CostModel cost(g, p);
  for (const Execution& e : all_engines(plan, cost)) {
    CAPTURE(e.engine);
    CHECK(e.ops[2].start == doctest::Approx(20e-6).epsilon(1e-9));
    CHECK(e.ops[1].start == doctest::Approx(30e-6).epsilon(1e-9));
  }
  CHECK(host_issue_times(plan, IssueCosts{{0.0}, {}}, 3).empty()); // no overhead: engines skip the check
}

TEST_CASE("issue overhead: a run-time policy issues an op when it dispatches it") {
  // The eager policy dispatches each op of the chain when its predecessor ends, so every op waits its
  // issue: 5 x (10 + 2) us.
  const Platform p = gpu_with_issue("10us");
  const Chain chain({2e6, 2e6, 2e6, 2e6, 2e6});
  const CostModel cost(chain.g, p);
  const Policy* eager = policy_registry().find("eager");
  REQUIRE(eager != nullptr);
  const DynamicRun run = run_simgrid_dynamic(*eager, {cost});
  CHECK(run.execution.makespan == doctest::Approx(5 * 12e-6).epsilon(1e-9));
  REQUIRE(run.execution.issued.size() == 5); // recorded, and carried out of the replay's process
  CHECK(run.execution.issued[4] == doctest::Approx(4 * 12e-6 + 10e-6).epsilon(1e-9));
}

TEST_CASE("issue overhead: the evaluator agrees with the replay on random graphs, several streams") {
  Platform p = load_platform("multi-gpu-node");
  for (Device& d : p.devices)
    d.issue_overhead = d.kind == "gpu" ? 20e-6 : 0.0;
  int waited = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Graph g = load_workload("random:ops=80,precision=fp16", seed);
    const CostModel cost(g, p);
    for (const std::string policy : {"heft", "greedy"}) {
      CAPTURE(seed);
      CAPTURE(policy);
      const Plan plan = policy_by_name(policy).plan({cost, seed});
      const Execution e = run_contention(plan, cost), r = run_simgrid(plan, cost);
      CHECK(std::abs(e.makespan - r.makespan) <= 1e-6 * r.makespan);
      const std::vector<double> issued = host_issue_times(plan, cost.issue_costs(), e.ops.size());
      for (std::size_t o = 0; o < e.ops.size(); ++o) {
        CHECK(std::abs(e.ops[o].start - r.ops[o].start) <= 1e-5 * r.makespan);
        CHECK(e.ops[o].start >= issued[o] * (1 - 1e-12));
        waited += e.ops[o].start <= issued[o] * (1 + 1e-9) && issued[o] > 0 ? 1 : 0;
      }
    }
  }
  CHECK(waited > 0); // some ops did start as they were issued: the overhead decided something
}

TEST_CASE("issue overhead: a negative or malformed value is refused, naming the field") {
  CHECK_THROWS_WITH_AS(gpu_with_issue("-1us"), doctest::Contains("issue_overhead"), InputError);
  CHECK_THROWS_WITH_AS(gpu_with_issue("fast"), doctest::Contains("issue_overhead"), InputError);
}

TEST_CASE("issue overhead: a calibration entry gives it to the devices it calibrates, from its file") {
  const auto path = std::filesystem::temp_directory_path() / "heterosim-issue-calibration.json";
  {
    std::ofstream f(path);
    f << R"({"format": "heterosim-calibration", "version": 2, "source": "a traced run",
             "entries": [{"name": "host", "applies_to": {"devices": ["gpu"]}, "measured": "a trace",
                          "issue_overhead": "10us"}]})";
  }
  const Platform p = gpu_with_issue("0s");
  const Calibration c = load_calibration(path.string(), p);
  std::filesystem::remove(path);
  REQUIRE(c.entries.size() == 1);
  CHECK(c.entries[0].issue_overhead == doctest::Approx(10e-6).epsilon(1e-12));
  const Chain chain({2e6, 2e6, 2e6, 2e6, 2e6});
  const CostModel calibrated(chain.g, p, c), bare(chain.g, p);
  CHECK(calibrated.issue_overheads() == std::vector<double>{c.entries[0].issue_overhead.value()});
  for (const Execution& e : all_engines(chain.plan(p), calibrated))
    CHECK(e.makespan == doctest::Approx(52e-6).epsilon(1e-9));
  CHECK(run_contention(chain.plan(p), bare).makespan == doctest::Approx(10e-6).epsilon(1e-9));
}

TEST_CASE("issue overhead: the report says how many ops waited for their host, and how long") {
  const Chain chain({2e6, 2e6, 2e6, 2e6, 2e6});
  const Platform p = gpu_with_issue("10us");
  const CostModel cost(chain.g, p);
  const Plan plan = chain.plan(p);
  const Report r = make_report({"issue", "chain", "manual", 0}, plan, cost, run_simgrid(plan, cost));
  CHECK(summary_text(r).find("host issue gpu: ") != std::string::npos);
  CHECK(summary_text(r).find("5 of 5 ops waited for their host") != std::string::npos);
  const auto j = report_json(r);
  CHECK(j["devices"]["gpu"]["host_issue"]["ops_waited"] == 5);
  CHECK(j["devices"]["gpu"]["host_issue"]["waited_s"].get<double>() == doctest::Approx(42e-6).epsilon(1e-9));
  // Without an issue overhead the run records no issue times and the report says nothing of a host.
  const Platform none = gpu_with_issue("0s");
  const CostModel free_host(chain.g, none);
  const Report bare =
      make_report({"issue", "chain", "manual", 0}, plan, free_host, run_simgrid(plan, free_host));
  CHECK(bare.execution.issued.empty());
  CHECK(summary_text(bare).find("host issue") == std::string::npos);
  CHECK_FALSE(report_json(bare)["devices"]["gpu"].contains("host_issue"));
}

TEST_CASE(
    "issue overhead: an op's own host time, as an eager graph gives it, issues the op in every engine") {
  // Issued at 10, 10, 20, 20, 30 us (the second and fourth ops cost their host nothing); 2 us kernels: the
  // first runs 10-12, the second 12-14, the third 20-22, the fourth 22-24, the last 30-32.
  const Platform p = gpu_with_issue("0s");
  const Chain chain({2e6, 2e6, 2e6, 2e6, 2e6}, {10e-6, 0.0, 10e-6, 0.0, 10e-6});
  const CostModel cost(chain.g, p);
  const Plan plan = chain.plan(p);
  const std::vector<double> issued = host_issue_times(plan, cost.issue_costs(), 5);
  REQUIRE(issued.size() == 5);
  CHECK(issued[3] == doctest::Approx(20e-6).epsilon(1e-12));
  for (const Execution& e : all_engines(plan, cost)) {
    CAPTURE(e.engine);
    CHECK(e.makespan == doctest::Approx(32e-6).epsilon(1e-9));
    CHECK(e.ops[3].start == doctest::Approx(22e-6).epsilon(1e-9));
  }
  // A run-time policy issues each at dispatch: (10 + 2) + 2 + (10 + 2) + 2 + (10 + 2) us.
  const DynamicRun run = run_simgrid_dynamic(*policy_registry().find("eager"), {cost});
  CHECK(run.execution.makespan == doctest::Approx(40e-6).epsilon(1e-9));
  // The report gives the mean over the device's ops and says whose figures they are.
  const Report r = make_report({"issue", "chain", "manual", 0}, plan, cost, run_simgrid(plan, cost));
  CHECK(summary_text(r).find("host issue gpu: 6 us per op on average, the graph's own figures") !=
        std::string::npos);
  CHECK(report_json(r)["devices"]["gpu"]["host_issue"]["figure"] == "ops");
}

TEST_CASE("issue overhead: a device's own figure replaces its ops' own") {
  // A host measured at 20 us per op issues every op at 20 us, whatever the graph's framework said.
  const Platform p = gpu_with_issue("20us");
  const Chain chain({2e6, 2e6, 2e6, 2e6, 2e6}, {10e-6, 0.0, 10e-6, 0.0, 10e-6});
  const CostModel cost(chain.g, p);
  for (const Execution& e : all_engines(chain.plan(p), cost))
    CHECK(e.makespan == doctest::Approx(5 * 20e-6 + 2e-6).epsilon(1e-9));
}

TEST_CASE("issue overhead: an op's host time goes through graph JSON, and a negative one is refused") {
  const Chain chain({2e6, 2e6}, {7e-6, 0.0});
  const Graph back = parse_graph(graph_to_json(chain.g), "chain.json");
  CHECK(back.ops[0].host_issue == doctest::Approx(7e-6).epsilon(1e-15));
  CHECK(back.ops[1].host_issue == 0.0);
  nlohmann::json j = graph_to_json(chain.g);
  j["ops"][1]["host_issue"] = "-2us";
  CHECK_THROWS_WITH_AS(parse_graph(j, "chain.json"), doctest::Contains("ops[1]"), InputError);
  j["ops"][1]["host_issue"] = "soon";
  CHECK_THROWS_WITH_AS(parse_graph(j, "chain.json"), doctest::Contains("host_issue"), InputError);
}
