// Invariants every schedule must satisfy, and the two engines checked against each other.
#include "policies/policy.hpp"
#include "schedule_checks.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>

using namespace hs;

using test::check_invariants;

TEST_CASE("every schedule respects dependencies, stream order and the idle-energy floor, on every preset") {
  for (const std::string platform : {"workstation", "multi-gpu-node", "hetero-server"}) {
    const Platform p = load_platform(platform);
    const Graph g = load_workload("random:ops=120,seed=7");
    const CostModel cost(g, p);
    for (const std::string policy : {"heft", "fastest-device"}) {
      CAPTURE(platform);
      CAPTURE(policy);
      const Plan plan = policy_by_name(policy).plan({cost, 7});
      validate_plan(plan, cost);
      const Execution a = run_analytic(plan, cost);
      const Execution s = run_simgrid(plan, cost);
      check_invariants(a, plan, cost);
      check_invariants(s, plan, cost);
      // Contention and copy-engine queueing can only delay a transfer in this model, never speed it up.
      CHECK(s.makespan >= a.makespan * (1 - 1e-6));
    }
  }
}

TEST_CASE("on contention-free plans the two engines agree within 1%, in time and in energy") {
  SUBCASE("a whole random graph on one device (no transfers)") {
    const Platform p = load_platform("hetero-server");
    const Graph g = load_workload("random:ops=200,seed=3");
    const CostModel cost(g, p);
    const Plan plan = policy_by_name("fastest-device").plan({cost, 3});
    const Execution a = run_analytic(plan, cost), s = run_simgrid(plan, cost);
    CHECK(s.makespan == doctest::Approx(a.makespan).epsilon(0.01));
    for (std::size_t d = 0; d < p.devices.size(); ++d)
      CHECK(s.device_energy[d] == doctest::Approx(a.device_energy[d]).epsilon(0.01));
    for (std::size_t l = 0; l < p.links.size(); ++l)
      CHECK(s.link_energy[l] == doctest::Approx(a.link_energy[l]).epsilon(0.01));
  }
  SUBCASE("a chain alternating between two devices: one transfer at a time") {
    const Platform p = test::switch_platform();
    GraphBuilder b("chain");
    OpHandle prev = b.op("op0").kind("gemm").flops(1e10);
    for (int i = 1; i < 12; ++i) {
      OpHandle next = b.op("op" + std::to_string(i)).kind("gemm").flops(1e10 * i);
      prev.feeds(next, 1e8 * i);
      prev = next;
    }
    const Graph g = std::move(b).build();
    const CostModel cost(g, p);
    Plan plan = Plan::empty(g.op_count(), p, "alternate");
    for (OpId o = 0; o < g.op_count(); ++o)
      plan.append(o, 1 + o % 2); // a, b, a, b, ...
    const Execution a = run_analytic(plan, cost), s = run_simgrid(plan, cost);
    CHECK(a.transfers.size() == 11);
    CHECK(s.makespan == doctest::Approx(a.makespan).epsilon(0.01));
    double energy_a = 0, energy_s = 0;
    for (std::size_t l = 0; l < p.links.size(); ++l) {
      energy_a += a.link_energy[l];
      energy_s += s.link_energy[l];
    }
    CHECK(energy_s == doctest::Approx(energy_a).epsilon(0.01));
    for (std::size_t i = 0; i < a.transfers.size(); ++i)
      CHECK(s.transfers[i].end - s.transfers[i].start ==
            doctest::Approx(a.transfers[i].end - a.transfers[i].start).epsilon(1e-4));
  }
}

TEST_CASE("energy: known answers from idle and busy power, and a slower p-state") {
  const Platform p = parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "one",
    "devices": [{"name": "d", "kind": "gpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "1TBps", "capacity": "1GB"},
                 "pstates": [{"speed": 1.0, "idle": "10W", "busy": "110W"}, {"speed": 0.5, "idle": "8W", "busy": "40W"}]},
                {"name": "e", "kind": "cpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "1TBps", "capacity": "1GB"},
                 "power": {"idle": "5W", "busy": "50W"}}],
    "unreachable": [["d", "e"]]})",
                                    "one.json");
  GraphBuilder b("two");
  auto x = b.op("x").flops(1e12); // 1 s at 1 Tflop/s
  auto y = b.op("y").flops(1e12);
  x.feeds(y, 0);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(2, p, "manual");
  plan.append(0, 0, 0, 0); // 1 s at nominal: 110 J
  plan.append(1, 0, 0, 1); // 2 s at half speed: 80 J
  for (const Execution& e : {run_analytic(plan, cost), run_simgrid(plan, cost)}) {
    CAPTURE(e.engine);
    CHECK(e.makespan == doctest::Approx(3.0));
    CHECK(e.device_energy[0] == doctest::Approx(110.0 + 80.0));
    CHECK(e.device_energy[1] == doctest::Approx(5.0 * 3.0)); // idle all along
  }
}

TEST_CASE("textbook DAGs (explicit costs) replay exactly as analysed, however many edges overlap") {
  // The textbook model has no copy-engine limit: explicit-cost edges must not queue behind each other.
  const Platform p = load_platform(test::source_dir() + "/platforms/textbook-3p.json");
  for (const std::string spec :
       {"topcuoglu:v=80,ccr=5,seed=2", "topcuoglu:v=80,ccr=10,out_degree=4,seed=3"}) {
    CAPTURE(spec);
    const Graph g = load_workload(spec);
    const CostModel cost(g, p);
    const Plan plan = policy_by_name("heft").plan({cost, 0});
    const Execution a = run_analytic(plan, cost), s = run_simgrid(plan, cost);
    CHECK(s.makespan == doctest::Approx(a.makespan).epsilon(1e-9));
    check_invariants(s, plan, cost);
  }
}
