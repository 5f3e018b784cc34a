// Calibration files, checked against a preset and applied to a cost model.
#include "fuzz_support.hpp"
#include "sim/cost_model.hpp"
#include "workloads/workload_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hs::Platform platform = hs::load_platform("workstation");
  static const hs::Graph graph = hs::load_workload("random:ops=20", 1);
  return hs::fuzz::expect_named_errors([&] {
    const hs::CostModel cost(graph, platform,
                             hs::load_calibration(hs::fuzz::as_file(data, size, ".json"), platform));
    (void)cost;
  });
}
