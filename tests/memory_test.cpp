#include "sim/analytic_engine.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"

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
  for (const Execution& e : {run_analytic(plan, cost), run_simgrid(plan, cost)}) {
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
