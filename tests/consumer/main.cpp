// Plans a random graph on a preset with HEFT and evaluates it, through the installed library only.
#include "policies/policy.hpp"
#include "sim/contention_engine.hpp"
#include "sim/platform.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <exception>

int main() {
  try {
    const hs::Platform platform = hs::load_platform("hetero-server");
    const hs::Graph graph = hs::load_workload("random:ops=200,precision=fp16", 1);
    const hs::CostModel cost(graph, platform);
    const hs::Plan plan = hs::policy_by_name("heft").plan({cost, 1});
    const hs::Execution& e = hs::ContentionEvaluator(cost).run(plan);
    std::printf("%s %s %d ops heft evaluator %.17g s\n", platform.name.c_str(), graph.name.c_str(),
                graph.op_count(), e.makespan);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
