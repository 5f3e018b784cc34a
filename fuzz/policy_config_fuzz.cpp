// Policy configuration files, read by the policies that take parameters.
#include "fuzz_support.hpp"
#include "policies/policy_config.hpp"
#include "workloads/workload_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hs::Platform platform = hs::load_platform("hetero-server");
  static const hs::Graph graph = hs::load_workload("random:ops=20,precision=fp16", 1);
  static const hs::CostModel cost(graph, platform);
  return hs::fuzz::expect_named_errors([&] {
    const auto config = hs::load_policy_config(hs::fuzz::as_file(data, size, ".json"));
    for (const char* name : {"expert-grouping", "heft-dvfs"})
      (void)hs::policy_by_name(name).plan({cost, 1, config});
  });
}
