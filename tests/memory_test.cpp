#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

using namespace hs;

// x -> y -> z on one device, and x's output also read by w on the other device.
// Sizes are distinct powers of two so each peak identifies which buffers were live together.
TEST_CASE("peak memory follows tensor lifetimes, parameters and workspaces") {
  const Platform p = test::switch_platform();
  GraphBuilder b("lifetimes");
  auto x = b.op("x").flops(1e12).params(1);     // 0.1 s on a (10 Tflop/s)
  auto y = b.op("y").flops(1e12).workspace(16); // 0.1 s
  auto z = b.op("z").flops(1e12);               // 0.1 s
  auto w = b.op("w").flops(1e12);               // on b
  b.tensor("xo", 2, x.id(), {y.id(), w.id()});
  y.feeds(z, 4, "yo");
  z.feeds(b.op("out").flops(0), 8, "zo");
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const DeviceId a = *p.find_device("a"), bb = *p.find_device("b");
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  for (OpId o : {0, 1, 2, 4})
    plan.append(o, a);
  plan.append(3, bb);
  ContentionEvaluator evaluator(cost);
  const Execution evaluated = evaluator.run(plan);
  CHECK(evaluator.peak_memory()[a] == doctest::Approx(1 + 2 + 4 + 16));
  CHECK(evaluator.peak_memory()[bb] == doctest::Approx(2));
  for (const Execution& e : {run_analytic(plan, cost), run_simgrid(plan, cost), evaluated}) {
    CAPTURE(e.engine);
    const MemoryUsage m = memory_usage(plan, cost, e);
    CHECK(m.parameters[a] == 1);
    // On a: params 1 + xo 2 (until y ends and its copy to b leaves) + yo 4 + y's workspace 16 while y runs.
    CHECK(m.peak[a] == doctest::Approx(1 + 2 + 4 + 16));
    // On b: only the copy of xo.
    CHECK(m.peak[bb] == doctest::Approx(2));
    CHECK(m.peak[*p.find_device("cpu")] == 0);
  }
}

TEST_CASE("capacity violations are reported per device") {
  const Platform p = test::switch_platform();
  GraphBuilder b("big");
  b.op("huge").params(20e9); // the test devices have 16 GB
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(1, p, "manual");
  plan.append(0, *p.find_device("a"));
  const auto m = memory_usage(plan, cost, run_analytic(plan, cost));
  const auto v = capacity_violations(m, p);
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("a: peak 20 GB exceeds its capacity of 16 GB") != std::string::npos);
}

// The evaluator tracks peaks as its timeline unfolds; memory_usage() sorts the same timeline's events. They
// must agree, or the Pareto search's memory objective would not be the report's.
TEST_CASE("the evaluator's tracked peaks equal memory_usage of its own timeline, plan by plan") {
  struct Case {
    const char* platform;
    const char* workload;
  };
  for (const Case& c : {Case{"hetero-server", "random:ops=150,precision=fp16"},
                        Case{"multi-gpu-node", "bert-base:batch=2,seq=64,precision=fp16,mode=training"},
                        Case{"workstation", "resnet50:batch=2,precision=fp32"}}) {
    const Platform p = load_platform(c.platform);
    const Graph g = load_workload(c.workload, 3);
    const CostModel cost(g, p);
    ContentionEvaluator evaluator(cost);
    for (const char* policy : {"heft", "heft-classic", "greedy", "fastest-device", "peft"}) {
      CAPTURE(c.platform);
      CAPTURE(policy);
      const Plan plan = policy_by_name(policy).plan({cost, 3});
      const Execution& e = evaluator.run(plan);
      const MemoryUsage m = memory_usage(plan, cost, e);
      for (std::size_t d = 0; d < p.devices.size(); ++d)
        CHECK(evaluator.peak_memory()[d] == doctest::Approx(m.peak[d]).epsilon(1e-9));
    }
  }
}
