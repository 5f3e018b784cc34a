// Properties of the fronts both searches return: no member dominated by another, every baseline
// dominated by or equal to a member, every plan valid and feasible, the budget respected, the same front
// for the same seed, and plans that beat fastest-device on energy and on memory.
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/nsga2_search.hpp"
#include "sim/graph_io.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

using namespace hs;
using namespace hs::pareto;

namespace {

struct Fixture {
  Graph graph = load_workload("random:ops=40,precision=fp16", 5);
  Platform platform = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  CostModel cost{graph, platform};
  ParetoProblem problem{cost, ProblemOptions{}};
};

void check_front(const ParetoProblem& problem, const SearchState& state,
                 const std::vector<Baseline>& baselines) {
  const auto& entries = state.archive().entries();
  REQUIRE_FALSE(entries.empty());
  for (const auto& a : entries) {
    CHECK(a.value.scores.feasible);
    for (const auto& b : entries)
      if (&a != &b) CHECK_FALSE(dominates(b.value.point, a.value.point));
    // Every member is a real, valid plan that evaluates to what the archive says.
    if (!a.fixed_plan) {
      const Decoded d = problem.encoding().decode(a.genome);
      CHECK_NOTHROW(validate_plan(d.plan, d.cost()));
      CHECK(problem.evaluate(a.genome).point == a.value.point);
    }
  }
  for (const auto& b : baselines) {
    const bool covered = std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
      return e.value.point == b.value.point || dominates(e.value.point, b.value.point);
    });
    CHECK_MESSAGE(covered, "baseline ", b.policy, " is not covered by the front");
  }
  CHECK(state.evaluations() <= state.budget());
}

// The bar: some front member beats fastest-device on energy, and some on memory.
void check_beats_fastest_device_on_energy_and_memory(const SearchState& state,
                                                     const std::vector<Baseline>& baselines) {
  const Baseline& fd = *std::find_if(baselines.begin(), baselines.end(),
                                     [](const Baseline& b) { return b.policy == "fastest-device"; });
  const auto& e = state.archive().entries();
  CHECK(std::any_of(e.begin(), e.end(),
                    [&](const Entry& x) { return x.value.scores.energy < fd.value.scores.energy; }));
  CHECK(std::any_of(e.begin(), e.end(),
                    [&](const Entry& x) { return x.value.scores.memory < fd.value.scores.memory; }));
}

} // namespace

TEST_CASE("the archive search's front is non-dominated and covers every baseline") {
  Fixture f;
  const auto baselines = f.problem.baselines(0);
  REQUIRE(baselines.size() >= 2); // heft and fastest-device at least
  SearchState state(f.problem, 300);
  run_archive_search(state, baselines, 1);
  check_front(f.problem, state, baselines);
  CHECK(state.evaluations() == 300);
  // The bar: some plan beats fastest-device on energy, and some on memory.
  check_beats_fastest_device_on_energy_and_memory(state, baselines);
  // And the front's hypervolume is at least the baselines'.
  std::vector<std::vector<double>> bp;
  for (const auto& b : baselines)
    bp.push_back(b.value.point);
  CHECK(hypervolume(state.archive().points(), f.problem.reference_point()) >=
        hypervolume(bp, f.problem.reference_point()));
}

TEST_CASE("NSGA-II on the same encoding keeps the same front properties") {
  Fixture f;
  const auto baselines = f.problem.baselines(0);
  SearchState state(f.problem, 300);
  run_nsga2_search(state, baselines, 1);
  check_front(f.problem, state, baselines);
}

TEST_CASE("the same seed gives the same front and another seed explores differently") {
  Fixture f;
  const auto baselines = f.problem.baselines(0);
  auto run = [&](std::uint64_t seed, bool nsga2) {
    SearchState state(f.problem, 200);
    if (nsga2)
      run_nsga2_search(state, baselines, seed);
    else
      run_archive_search(state, baselines, seed);
    std::vector<std::pair<Genome, std::vector<double>>> out;
    for (const auto& e : state.archive().entries())
      out.emplace_back(e.genome, e.value.point);
    return out;
  };
  CHECK(run(7, false) == run(7, false));
  CHECK(run(7, true) == run(7, true));
  CHECK(run(7, false) != run(8, false));
}

TEST_CASE("an over-budget precision penalty makes a plan infeasible") {
  GraphBuilder b("sensitive");
  auto x = b.op("x").kind("gemm").precision("fp32").flops(1e12).reads(1e6).writes(1e6).sensitivity(0.8);
  auto y = b.op("y").kind("elementwise").precision("fp16").flops(1e6).reads(1e6).writes(1e6);
  x.feeds(y, 1e6);
  const Graph g = std::move(b).build();
  const Platform p = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  const CostModel cost(g, p);
  ProblemOptions o;
  o.objectives = {Objective::Latency, Objective::Precision};
  o.error_budget = 0.3;
  const ParetoProblem problem(cost, o);
  const DeviceId npu = *p.find_device("npu0");
  // The NPU has no fp32: placing x there demotes it to fp16, a penalty of 0.8 x (1 - 16/32) = 0.4 > 0.3.
  const Genome g_npu = problem.encoding().all_on(npu);
  const Decoded d = problem.encoding().decode(g_npu);
  REQUIRE(d.op_device[0] == npu);
  CHECK(d.decision.precision[0] == "fp16");
  CHECK(d.precision_penalty == doctest::Approx(0.4));
  CHECK_FALSE(problem.evaluate(g_npu).scores.feasible);
  const Genome g_gpu = problem.encoding().all_on(*p.find_device("gpu0"));
  CHECK(problem.evaluate(g_gpu).scores.precision == 0.0);
  CHECK(problem.evaluate(g_gpu).scores.feasible);
}

TEST_CASE(
    "on the Topcuoglu et al. 2002 textbook DAG both searches reach the energy lower bound and beat HEFT") {
  // textbook-3p: 1 W busy, 0 W idle, so energy = busy processor-seconds, and its minimum is each op on
  // its fastest processor: 91 s for this graph. HEFT's published makespan is 80.
  const Graph g = load_graph(test::source_dir() + "/workloads/examples/topcuoglu2002.json");
  const Platform p = load_platform(test::source_dir() + "/platforms/textbook-3p.json");
  const CostModel cost(g, p);
  double lower_bound = 0;
  for (OpId o = 0; o < g.op_count(); ++o) {
    double best = kInfeasible;
    for (DeviceId d = 0; d < p.device_count(); ++d)
      best = std::min(best, cost.op_time(o, d));
    lower_bound += best;
  }
  REQUIRE(lower_bound == doctest::Approx(91.0));
  ProblemOptions o;
  o.objectives = {Objective::Latency, Objective::Energy};
  const ParetoProblem problem(cost, o);
  const auto baselines = problem.baselines(0);
  for (bool nsga2 : {false, true}) {
    SearchState state(problem, 1500);
    if (nsga2)
      run_nsga2_search(state, baselines, 3);
    else
      run_archive_search(state, baselines, 3);
    check_front(problem, state, baselines);
    const auto& e = state.archive().entries();
    double best_energy = kInfeasible, best_latency = kInfeasible;
    for (const auto& x : e) {
      best_energy = std::min(best_energy, x.value.scores.energy);
      best_latency = std::min(best_latency, x.value.scores.latency);
    }
    CHECK(best_energy == doctest::Approx(lower_bound));
    CHECK(best_latency < 80.0);
  }
}

TEST_CASE("every model family gets a front that covers its baselines and beats fastest-device on energy and "
          "memory") {
  const Platform p = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  for (const char* spec : {"resnet18:precision=fp16", "bert-base:seq=32,precision=fp16",
                           "gpt2-small:seq=16,decode=1,heads=fused,precision=fp16", "gcn:precision=fp16",
                           "graphsage:precision=fp16", "random:ops=30,precision=fp16"}) {
    CAPTURE(spec);
    const Graph g = load_workload(spec, 1);
    const CostModel cost(g, p);
    const ParetoProblem problem(cost, ProblemOptions{});
    const auto baselines = problem.baselines(0);
    SearchState state(problem, 60);
    run_archive_search(state, baselines, 1);
    check_front(problem, state, baselines);
    check_beats_fastest_device_on_energy_and_memory(state, baselines);
  }
}
