// What-if scenarios against a preset, then one evaluation under them: an accepted scenario must run.
#include "fuzz_support.hpp"
#include "sim/contention_engine.hpp"
#include "sim/scenario.hpp"
#include "workloads/workload_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hs::Platform platform = hs::load_platform("hetero-server");
  static const hs::Graph graph = hs::load_workload("random:ops=30,precision=fp16", 1);
  static const hs::CostModel cost(graph, platform);
  static const hs::Plan plan = [] {
    hs::Plan p = hs::Plan::empty(graph.op_count(), platform, "fuzz");
    for (hs::OpId o : graph.topological_order())
      p.append(o, o % 2 ? 1 : 0); // cpu0 and gpu0, so transfers cross links
    return p;
  }();
  return hs::fuzz::expect_named_errors([&] {
    const hs::Scenario s = hs::parse_scenario(hs::fuzz::text(data, size), "fuzz.json", platform);
    (void)hs::run_contention(plan, cost, s);
  });
}
