// Stored plans (`select --out`, front.json) replayed by `run --plan`: loaded, rewrites re-applied,
// validated, evaluated.
#include "fuzz_support.hpp"
#include "policies/pareto/stored_plan.hpp"
#include "sim/contention_engine.hpp"
#include "workloads/workload_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hs::Platform platform = hs::load_platform("hetero-server");
  static const hs::Graph graph = hs::load_workload("random:ops=12,precision=fp16", 1);
  static const hs::CostModel cost(graph, platform);
  return hs::fuzz::expect_named_errors([&] {
    const auto stored =
        hs::pareto::load_stored_plan(hs::fuzz::as_file(data, size, ".json"), std::nullopt, cost);
    hs::validate_plan(stored.plan, *stored.cost);
    (void)hs::run_contention(stored.plan, *stored.cost);
  });
}
