// Each static policy's defining behaviour on small hand-made graphs whose answers are worked out by hand.
#include "policies/policy.hpp"
#include "policies/policy_config.hpp"
#include "policy_test_support.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/json_input.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <numeric>

using namespace hs;

namespace {

double total(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

std::shared_ptr<const PolicyConfig> config_file(const std::string& name, const std::string& json) {
  const auto path = std::filesystem::temp_directory_path() / ("hs-policy-config-" + name + ".json");
  write_file_atomically(path.string(), json, true);
  return load_policy_config(path.string());
}

} // namespace

TEST_CASE("PEFT looks ahead where HEFT does not: a parent placed for its child's sake (classic forms)") {
  // A -> B with a 20 s edge. A takes 10 s on P1 and 11 s on P2; B takes 100 s on P1 and 10 s on P2.
  // HEFT puts A on P1 (EFT 10 < 11), then B on P2 (10 + 20 + 10 = 40 < 110): makespan 40.
  // PEFT: OCT(A, P1) = min(100, 10 + 20, 100 + 20) = 30 and OCT(A, P2) = min(100 + 20, 10, 120) = 10, so
  // O_EFT(A) = 10 + 30 = 40 on P1 and 11 + 10 = 21 on P2: A goes to P2 and B follows, makespan 21.
  const Platform p = load_platform(test::source_dir() + "/platforms/textbook-3p.json");
  GraphBuilder b("peft-lookahead");
  auto a = b.op("A").time_on("P1", 10).time_on("P2", 11).time_on("P3", 100);
  auto c = b.op("B").time_on("P1", 100).time_on("P2", 10).time_on("P3", 100);
  a.feeds_in(c, 20);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const Plan heft = policy_by_name("heft-classic").plan({cost});
  const Plan peft = policy_by_name("peft-classic").plan({cost});
  CHECK(heft.device[0] == 0);
  CHECK(peft.device[0] == 1);
  CHECK(peft.device[1] == 1);
  CHECK(run_analytic(heft, cost).makespan == doctest::Approx(40));
  CHECK(run_analytic(peft, cost).makespan == doctest::Approx(21));
  CHECK(run_simgrid(peft, cost).makespan == doctest::Approx(21));
  // The contention-aware forms check their plan against the whole graph on one device (P2: 11 + 10 = 21),
  // which beats HEFT's 40 here.
  CHECK(run_simgrid(policy_by_name("heft").plan({cost}), cost).makespan == doctest::Approx(21));
  CHECK(run_simgrid(policy_by_name("peft").plan({cost}), cost).makespan == doctest::Approx(21));
}

TEST_CASE("PEFT on the Topcuoglu example: a valid schedule no longer than the sequential one") {
  const Platform p = load_platform(test::source_dir() + "/platforms/textbook-3p.json");
  const Graph g = load_workload(test::source_dir() + "/workloads/examples/topcuoglu2002.json");
  const CostModel cost(g, p);
  const Plan plan = policy_by_name("peft").plan({cost});
  validate_plan(plan, cost);
  const double makespan = run_analytic(plan, cost).makespan;
  CHECK(makespan == doctest::Approx(run_simgrid(plan, cost).makespan));
  CHECK(makespan <= run_analytic(policy_by_name("fastest-device").plan({cost}), cost).makespan);
}

TEST_CASE("greedy: compute-bound ops to the accelerator, memory-bound and launch-dominated ops to the CPU") {
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("greedy");
  // Ridge point of a gpu: 10 Tflop/s / 1 TB/s = 10 flop/byte.
  auto big = b.op("big_gemm").kind("gemm").flops(1e12).reads(5e8).writes(5e8);     // 1000 flop/byte, 100 ms
  auto stream = b.op("add").kind("elementwise").flops(1e8).reads(5e8).writes(5e8); // 0.1 flop/byte
  auto tiny =
      b.op("tiny_gemm").kind("gemm").flops(1e6).reads(1e3).writes(1e3); // 500 flop/byte, 0.1 us + 5 us launch
  big.feeds(stream, 1e6);
  stream.feeds(tiny, 1e3);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const Plan plan = policy_by_name("greedy").plan({cost});
  CHECK(p.devices[plan.device[0]].kind == "gpu");
  CHECK(p.devices[plan.device[1]].name == "cpu");
  CHECK(p.devices[plan.device[2]].name == "cpu");
}

TEST_CASE("expert-grouping follows its table, and the table is editable") {
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("experts");
  auto conv = b.op("conv").kind("conv2d").flops(1e10).reads(1e6).writes(1e6);
  auto soft = b.op("softmax").kind("softmax").flops(1e6).reads(1e6).writes(1e6);
  conv.feeds(soft, 1e6);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const Plan by_default = policy_by_name("expert-grouping").plan({cost});
  CHECK(p.devices[by_default.device[0]].kind == "gpu");
  CHECK(p.devices[by_default.device[1]].kind == "cpu"); // though the gpu would be faster

  const auto edited =
      config_file("experts", R"({"expert-grouping": {"table": {"softmax": ["gpu"], "conv2d": ["cpu"]}}})");
  const Plan plan = policy_by_name("expert-grouping").plan({cost, 0, edited});
  CHECK(p.devices[plan.device[0]].kind == "cpu");
  CHECK(p.devices[plan.device[1]].kind == "gpu");

  CHECK_THROWS_AS(config_file("bad", R"({"expert-groupin": {}})"), InputError); // names the unknown policy
  const auto empty_list = config_file("empty", R"({"expert-grouping": {"table": {"softmax": []}}})");
  CHECK_THROWS_AS(policy_by_name("expert-grouping").plan({cost, 0, empty_list}), InputError);
}

TEST_CASE("memory-aware never exceeds capacity, spreads a graph that fits no single device, refuses one that "
          "fits nowhere") {
  // Each layer holds 600 MB of parameters; a gpu holds 2 GB, so the 8-layer chain (4.8 GB) fits on no
  // gpu alone; the cpu is slow but large.
  const auto layers = [](int n) {
    GraphBuilder b("big-chain");
    OpHandle prev = b.op("l0").kind("gemm").flops(1e10).reads(1e6).writes(1e6).params(6e8);
    for (int k = 1; k < n; ++k) {
      std::string name = "l";
      name += std::to_string(k);
      auto op = b.op(name).kind("gemm").flops(1e10).reads(1e6).writes(1e6).params(6e8);
      prev.feeds(op, 1e7);
      prev = op;
    }
    return std::move(b).build();
  };
  const Platform p = test::cpu_two_gpus("2GB");
  const Graph g = layers(8);
  const CostModel cost(g, p);
  const Plan heft = policy_by_name("heft").plan({cost});
  CHECK_FALSE(capacity_violations(memory_usage(heft, cost, run_analytic(heft, cost)), p)
                  .empty()); // the problem is real

  const Plan plan = policy_by_name("memory-aware").plan({cost});
  for (const Execution& e : {run_analytic(plan, cost), run_simgrid(plan, cost)})
    CHECK(capacity_violations(memory_usage(plan, cost, e), p).empty());
  CHECK(test::ops_on(plan, 1) > 0);
  CHECK(test::ops_on(plan, 2) > 0); // both gpus used: the graph was spread

  // Parameters larger than every device: no plan, and the error names the op.
  GraphBuilder huge("huge");
  huge.op("whale").kind("gemm").flops(1e9).reads(1e3).writes(1e3).params(1e12);
  const Graph hg = std::move(huge).build();
  const CostModel hcost(hg, p);
  CHECK_THROWS_WITH_AS(policy_by_name("memory-aware").plan({hcost}), doctest::Contains("whale"), PlanError);
}

TEST_CASE("heft-dvfs lowers p-states only where slack allows: same makespan, less energy") {
  // Two independent chains from one source: 6 ms of work on one gpu, 1 ms on the other, which therefore
  // has 5 ms of slack and can run at half speed (40 W x 2 ms < 110 W x 1 ms above idle).
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("slack");
  auto src = b.op("src").kind("gemm").flops(1e7).reads(1e3).writes(1e3);
  OpHandle prev = src;
  for (int k = 0; k < 6; ++k) {
    auto op = b.op("long" + std::to_string(k)).kind("gemm").flops(1e10).reads(1e3).writes(1e3);
    prev.feeds(op, 1e3);
    prev = op;
  }
  auto short_op = b.op("short").kind("gemm").flops(1e10).reads(1e3).writes(1e3);
  src.feeds(short_op, 1e3);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const Plan heft = policy_by_name("heft").plan({cost});
  const Plan dvfs = policy_by_name("heft-dvfs").plan({cost});
  CHECK(dvfs.device == heft.device);
  CHECK(dvfs.pstate[static_cast<std::size_t>(*g.find_op("short"))] == 1);
  CHECK(dvfs.pstate[static_cast<std::size_t>(*g.find_op("long3"))] == 0); // on the critical path
  const Execution h = run_analytic(heft, cost), d = run_analytic(dvfs, cost);
  CHECK(d.makespan <= h.makespan * (1 + 1e-12));
  CHECK(total(d.device_energy) < total(h.device_energy));
  const Execution sd = run_simgrid(dvfs, cost), sh = run_simgrid(heft, cost);
  CHECK(sd.makespan == doctest::Approx(d.makespan));
  CHECK(total(sd.device_energy) < total(sh.device_energy));
}

TEST_CASE("heft-dvfs never extends the makespan beyond its allowed slack, on random graphs of every preset") {
  // Each form keeps its promise on the timeline it plans with: the classic one on the contention-free
  // engine, the contention-aware one on the evaluator (which matches the replay).
  struct Form {
    const char *dvfs, *heft;
    bool contention;
  };
  for (const Form form : {Form{"heft-dvfs-classic", "heft-classic", false}, Form{"heft-dvfs", "heft", true}})
    for (const std::string platform : {"workstation", "multi-gpu-node", "hetero-server"})
      for (const double slack : {0.0, 0.25}) {
        CAPTURE(form.dvfs);
        CAPTURE(platform);
        CAPTURE(slack);
        const Platform p = load_platform(platform);
        const Graph g = load_workload("random:ops=80,precision=fp16,seed=3");
        const CostModel cost(g, p);
        const auto config = config_file("dvfs", R"({")" + std::string(form.dvfs) + R"(": {"slack": )" +
                                                    std::to_string(slack) + "}}");
        const Plan heft = policy_by_name(form.heft).plan({cost});
        const Plan dvfs = policy_by_name(form.dvfs).plan({cost, 0, config});
        const auto timeline = [&](const Plan& x) {
          return form.contention ? run_contention(x, cost) : run_analytic(x, cost);
        };
        const Execution h = timeline(heft), d = timeline(dvfs);
        CHECK(d.makespan <= h.makespan * (1 + slack) * (1 + 1e-9));
        CHECK(total(d.device_energy) <= total(h.device_energy) * (1 + 1e-9));
      }
}

TEST_CASE("every static policy gives a valid plan on every preset platform and on random workloads") {
  for (const std::string platform : {"workstation", "multi-gpu-node", "hetero-server"})
    for (const std::string precision : {"fp32", "fp16"})
      for (const auto& policy : planning_policies()) {
        CAPTURE(platform);
        CAPTURE(precision);
        CAPTURE(policy.name());
        const Platform p = load_platform(platform);
        const Graph g = load_workload("random:ops=60,seed=5,precision=" + precision);
        const CostModel cost(g, p);
        const Plan plan = policy.plan({cost, 5});
        CHECK_NOTHROW(validate_plan(plan, cost));
        const Execution e = run_analytic(plan, cost);
        test::check_dependencies(e, plan, cost);
      }
}
