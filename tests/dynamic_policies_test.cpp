// Run-time policies inside the SimGrid replay, what-if scenarios (availability profiles, noise), and
// the comparison of static and run-time policies under interference.
#include "policies/policy.hpp"
#include "policy_test_support.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/error.hpp"
#include "sim/memory.hpp"
#include "sim/scenario.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <cmath>
#include <doctest/doctest.h>

using namespace hs;

namespace {

const Policy& dynamic(const std::string& name) {
  const Policy* p = policy_registry().find(name);
  REQUIRE_MESSAGE((p != nullptr && p->decides_at_run_time()), "no run-time policy ", name);
  return *p;
}

Scenario scenario(const std::string& json, const Platform& p) {
  return parse_scenario(json, "scenario.json", p);
}

} // namespace

TEST_CASE("a device availability profile slows an op exactly as the profile says") {
  // 1e10 flops at 10 Tflop/s plus 5 us launch = 1.005 ms on gpu a. At 50% from 0.2 ms to 0.6 ms, the op
  // does 0.2 ms of work in that window instead of 0.4, so it ends 0.2 ms later: 1.205 ms.
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("one");
  b.op("x").kind("gemm").flops(1e10).reads(1e3).writes(1e3);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(1, p, "manual");
  plan.append(0, 1);
  const auto s = scenario(R"({"format": "heterosim-scenario", "version": 1, "devices": [
      {"device": "a", "profile": [{"at": "0.2ms", "availability": 0.5}, {"at": "0.6ms", "availability": 1}]}]})",
                          p);
  CHECK(run_simgrid(plan, cost).makespan == doctest::Approx(1.005e-3).epsilon(1e-9));
  CHECK(run_simgrid(plan, cost, s).makespan == doctest::Approx(1.205e-3).epsilon(1e-9));
}

TEST_CASE("a degraded link profile slows a transfer exactly") {
  // 32 MB on a 32 GB/s link takes 1 ms; at 25% bandwidth from t = 0 it takes 4 ms.
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("copy");
  auto x = b.op("x").kind("elementwise").flops(0).reads(0).writes(32e6);
  auto y = b.op("y").kind("elementwise").flops(0).reads(32e6).writes(0);
  x.feeds(y, 32e6);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(2, p, "manual");
  plan.append(0, 1);
  plan.append(1, 0);
  const auto s = scenario(R"({"format": "heterosim-scenario", "version": 1,
      "links": [{"link": "link_a", "profile": [{"at": 0, "availability": 0.25}]}]})",
                          p);
  const Execution normal = run_simgrid(plan, cost), degraded = run_simgrid(plan, cost, s);
  REQUIRE(normal.transfers.size() == 1);
  REQUIRE(degraded.transfers.size() == 1);
  CHECK(normal.transfers[0].end - normal.transfers[0].start == doctest::Approx(1e-3).epsilon(1e-6));
  CHECK(degraded.transfers[0].end - degraded.transfers[0].start == doctest::Approx(4e-3).epsilon(1e-6));
}

TEST_CASE("scenario files are checked: unknown names, bad availability and unordered steps name the place") {
  const Platform p = test::cpu_two_gpus();
  CHECK_THROWS_WITH_AS(
      scenario(
          R"({"version": 1, "devices": [{"device": "gpu9", "profile": [{"at": 0, "availability": 0.5}]}]})",
          p),
      doctest::Contains("devices[0].device"), InputError);
  CHECK_THROWS_WITH_AS(
      scenario(R"({"version": 1, "devices": [{"device": "a", "profile": [{"at": 0, "availability": 1.5}]}]})",
               p),
      doctest::Contains("availability"), InputError);
  CHECK_THROWS_AS(
      scenario(R"({"version": 1, "links": [{"link": "link_a", "profile": [{"at": "2ms", "availability": 0.5},
                                                                                       {"at": "1ms", "availability": 1}]}]})",
               p),
      InputError);
  CHECK_THROWS_AS(scenario(R"({"version": 1, "noise": {"cv": -1}})", p), InputError);
}

TEST_CASE("op-time noise: lognormal factors of mean 1 and the requested CV, the same for the same seed") {
  Scenario s;
  s.noise_cv = 0.3;
  s.noise_seed = 11;
  const auto f = s.op_time_factors(20000);
  CHECK(f == s.op_time_factors(20000));
  double mean = 0, sq = 0;
  for (double x : f)
    mean += x;
  mean /= static_cast<double>(f.size());
  for (double x : f)
    sq += (x - mean) * (x - mean);
  const double cv = std::sqrt(sq / static_cast<double>(f.size())) / mean;
  CHECK(mean == doctest::Approx(1.0).epsilon(0.02));
  CHECK(cv == doctest::Approx(0.3).epsilon(0.05));
  s.noise_seed = 12;
  CHECK(f != s.op_time_factors(20000));
}

TEST_CASE("run-time policies adapt when a device is slowed mid-run, the static HEFT plan does not") {
  // Eight chains of six 1 ms GEMMs: HEFT splits them over the two gpus (about 24 ms each). Gpu a then runs
  // at 20% from 2 ms on: HEFT's half of the work on a takes five times longer, while eager, dmda and
  // work stealing move the remaining work to gpu b as they see a fall behind.
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(8, 6);
  const CostModel cost(g, p);
  const auto slowed = scenario(
      R"({"version": 1, "devices": [{"device": "a", "profile": [{"at": "2ms", "availability": 0.2}]}]})", p);
  const Plan heft = policy_by_name("heft").plan({cost});
  REQUIRE(test::ops_on(heft, 1) >= 20); // HEFT does use gpu a for a large share
  const double heft_slowed = run_simgrid(heft, cost, slowed).makespan;
  CHECK(heft_slowed > 1.5 * run_simgrid(heft, cost).makespan);
  for (const std::string name : {"eager", "dmda", "work-stealing", "hybrid"}) {
    CAPTURE(name);
    const DynamicRun run = run_simgrid_dynamic(dynamic(name), {cost}, slowed);
    CHECK(run.execution.makespan < 0.75 * heft_slowed);
    CHECK(test::ops_on(run.plan, 2) > test::ops_on(run.plan, 1)); // more work went to the unslowed gpu
  }
}

TEST_CASE("eager: any idle device that can run a ready op takes it, even a slow one") {
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(8, 2);
  const CostModel cost(g, p);
  const DynamicRun run = run_simgrid_dynamic(dynamic("eager"), {cost});
  CHECK(test::ops_on(run.plan, 0) > 1); // the cpu took GEMMs (the source is on it too)
  CHECK(test::ops_on(run.plan, 1) > 0);
  CHECK(test::ops_on(run.plan, 2) > 0);
}

TEST_CASE("work stealing stays within a device kind, dmda and hybrid keep GEMMs off the slow cpu") {
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(8, 3);
  const CostModel cost(g, p);
  const auto gemms_on_cpu = [&](const Plan& plan) {
    int n = 0;
    for (OpId o = 0; o < g.op_count(); ++o)
      n += g.op(o).kind == "gemm" && plan.device[o] == 0;
    return n;
  };
  const DynamicRun ws = run_simgrid_dynamic(dynamic("work-stealing"), {cost});
  CHECK(gemms_on_cpu(ws.plan) == 0); // the cpu is another kind: it may not steal gpu work
  CHECK(test::ops_on(ws.plan, 1) > 0);
  CHECK(test::ops_on(ws.plan, 2) > 0); // both gpus ran work, though chains were homed by locality
  CHECK(gemms_on_cpu(run_simgrid_dynamic(dynamic("dmda"), {cost}).plan) == 0);
  // hybrid: each op runs on a device of the kind HEFT chose for it.
  const Plan heft = policy_by_name("heft").plan({cost});
  const DynamicRun hy = run_simgrid_dynamic(dynamic("hybrid"), {cost});
  for (OpId o = 0; o < g.op_count(); ++o)
    CHECK(p.devices[hy.plan.device[o]].kind == p.devices[heft.device[o]].kind);
}

TEST_CASE("dmda counts input transfers: a consumer of a large tensor stays where the tensor is") {
  // The producer runs on the cpu (the only device allowed); its 8 GB output would take 250 ms to reach a
  // gpu over 32 GB/s, far more than the 10x faster gpu saves on a 10 ms op.
  const Platform p = test::cpu_two_gpus();
  GraphBuilder b("heavy-input");
  auto x = b.op("x").kind("elementwise").flops(1e3).reads(1e3).writes(8e9).only_on({"cpu"});
  auto y = b.op("y").kind("gemm").flops(1e10).reads(8e9).writes(1e3);
  x.feeds(y, 8e9);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  CHECK(run_simgrid_dynamic(dynamic("dmda"), {cost}).plan.device[1] == 0);
}

TEST_CASE("every run-time policy runs on every preset and random workloads: valid plan, deterministic, "
          "memory reported") {
  for (const std::string platform : {"workstation", "multi-gpu-node", "hetero-server"})
    for (const auto& policy : policy_registry().all()) {
      if (!policy.decides_at_run_time()) continue;
      CAPTURE(platform);
      CAPTURE(policy.name());
      const Platform p = load_platform(platform);
      const Graph g = load_workload("random:ops=60,seed=9,precision=fp16");
      const CostModel cost(g, p);
      const DynamicRun a = run_simgrid_dynamic(policy, {cost, 9});
      const DynamicRun b = run_simgrid_dynamic(policy, {cost, 9});
      CHECK_NOTHROW(validate_plan(a.plan, cost));
      test::check_dependencies(a.execution, a.plan, cost);
      CHECK(a.execution.makespan == b.execution.makespan);
      CHECK(a.plan.device == b.plan.device);
      const MemoryUsage m = memory_usage(a.plan, cost, a.execution);
      CHECK(m.peak.size() == p.devices.size());
    }
}

namespace {
// A deliberately wrong run-time policy: it dispatches the last op of the graph before its inputs exist.
class Impatient final : public DynamicScheduler {
public:
  std::optional<DeviceId> on_ready(OpId, const ReplayView&) override { return std::nullopt; }
  std::optional<OpId> on_idle(DeviceId, const ReplayView& view) override {
    return view.cost().graph().op_count() - 1;
  }
};
struct ImpatientPolicy {
  std::string name() const { return "impatient"; }
  std::string description() const { return "test only"; }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext&) const {
    return std::make_unique<Impatient>();
  }
};
} // namespace

TEST_CASE("the replay refuses a run-time decision that breaks a dependency, instead of running it") {
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(2, 2);
  const CostModel cost(g, p);
  CHECK_THROWS_AS(run_simgrid_dynamic(Policy(ImpatientPolicy{}), {cost}), std::runtime_error);
}

namespace {
struct StaticNamedEager {
  std::string name() const { return "eager"; } // a run-time policy's name
  std::string description() const { return "a static policy under a run-time policy's name"; }
  Plan plan(const PolicyContext& ctx) const { return policy_by_name("fastest-device").plan(ctx); }
};
} // namespace

TEST_CASE("static and run-time policies share one namespace") {
  REQUIRE(policy_registry().find("eager"));
  CHECK_THROWS_AS(policy_registry().add(Policy(StaticNamedEager{})), std::logic_error);
  CHECK(policy_registry().find("eager")->decides_at_run_time()); // the run-time one is still there
  CHECK_FALSE(policy_registry().find("eager")->plans_ahead());
}
