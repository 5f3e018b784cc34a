// How close each engine comes to the SimGrid replay, and how good each static policy's plan is in the
// replay, over a matrix of workloads x platforms x every static policy.
//
//   evaluator_agreement PLATFORM WORKLOAD [SEED]
//
// prints one CSV line per static policy:
//   platform,workload,ops,policy,analytic_s,evaluator_s,replay_s,evaluator_error,analytic_error,
//   replay_vs_fastest_device
// (errors are signed, relative to the replay). results/contention/run.sh runs the matrix and summarises.
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

using namespace hs;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PLATFORM WORKLOAD [SEED]\n", argv[0]);
    return 2;
  }
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  try {
    const Platform platform = load_platform(argv[1]);
    const Graph graph = load_workload(argv[2], seed);
    const CostModel cost(graph, platform);
    double fastest_replay = 0.0;
    try {
      fastest_replay = run_simgrid(policy_by_name("fastest-device").plan({cost, seed}), cost).makespan;
    } catch (const std::exception&) {
    }
    for (const Policy& policy : planning_policies()) {
      if (!policy.in_comparisons()) continue;
      Plan plan;
      try {
        plan = policy.plan({cost, seed});
        validate_plan(plan, cost);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s on %s/%s: skipped (%s)\n", policy.name().c_str(), argv[1], argv[2],
                     e.what());
        continue;
      }
      const double analytic = run_analytic(plan, cost).makespan;
      const double evaluator = run_contention(plan, cost).makespan;
      const double replay = run_simgrid(plan, cost).makespan;
      std::printf("%s,\"%s\",%d,%s,%.9g,%.9g,%.9g,%.6f,%.6f,%.6f\n", platform.name.c_str(), argv[2],
                  graph.op_count(), policy.name().c_str(), analytic, evaluator, replay,
                  (evaluator - replay) / replay, (analytic - replay) / replay,
                  fastest_replay > 0 ? replay / fastest_replay : 0.0);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evaluator_agreement: %s\n", e.what());
    return 1;
  }
  return 0;
}
