// What planning a graph costs, against what evaluating the plan costs: the list schedulers' price in units
// a search understands (one contention-aware evaluation of the same plan, the baseline in the same run).
//
//   planning_bench POLICY WORKLOAD PLATFORM
//
// prints one line:
//   policy workload platform ops plans plan_cpu_ms evaluation_cpu_ms plan_over_evaluation
// Each figure is the mean CPU time of repeated calls (at least 1 CPU second and 3 calls, after a warm-up),
// one evaluator reused, as a search reuses it. bench/run_planning_bench.sh runs the cases of the README.
#include "policies/policy.hpp"
#include "sim/contention_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <ctime>
#include <exception>
#include <string>

using namespace hs;

namespace {

double planning_cpu_seconds() {
  // The process's CPU time, to the microsecond on Linux.
  return static_cast<double>(std::clock()) / static_cast<double>(CLOCKS_PER_SEC);
}

// The mean CPU seconds of f() over at least 1 CPU second and 3 calls, and how many calls that was.
template <class F> std::pair<double, long> planning_mean_cpu(F&& f) {
  f(); // warm-up: the checkpoint loaded, buffers sized
  long calls = 0;
  const double t0 = planning_cpu_seconds();
  double spent = 0;
  do {
    f();
    ++calls;
    spent = planning_cpu_seconds() - t0;
  } while (spent < 1.0 || calls < 3);
  return {spent / static_cast<double>(calls), calls};
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s POLICY WORKLOAD PLATFORM\n", argv[0]);
    return 2;
  }
  try {
    const Platform platform = load_platform(argv[3]);
    const Graph g = load_workload(argv[2], 1);
    const CostModel cost(g, platform);
    const Policy& policy = policy_by_name(argv[1]);
    Plan plan = policy.plan({cost, 1});
    validate_plan(plan, cost);
    ContentionEvaluator evaluator(cost);
    double sink = 0;
    const auto [plan_s, plans] = planning_mean_cpu([&] { plan = policy.plan({cost, 1}); });
    const auto [evaluation_s, evaluations] = planning_mean_cpu([&] { sink += evaluator.makespan(plan); });
    std::printf("%s %s %s %d %ld %.3f %.3f %.2f\n", argv[1], argv[2], argv[3], g.op_count(), plans,
                1e3 * plan_s, 1e3 * evaluation_s, plan_s / evaluation_s);
    if (sink < 0) std::printf("%g\n", sink); // never: keeps the evaluations from being optimised away
  } catch (const std::exception& e) {
    std::fprintf(stderr, "planning_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
