// The one load sequence every entry point shares (policies/run_inputs.hpp).
#include "policies/run_inputs.hpp"
#include "sim/error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace hs;

TEST_CASE(
    "run inputs load the platform, the workload with its transformation, the scenario and the cost model") {
  InputFiles files{"hetero-server", "random:ops=40,precision=fp16", "", "", "", 3, nullptr};
  int transformed = 0;
  files.transform = [&](Graph g, const Platform& p) {
    ++transformed;
    CHECK(p.name == "hetero-server"); // the platform is loaded first
    return g;
  };
  const RunInputs inputs(files);
  CHECK(transformed == 1);
  CHECK(inputs.graph().op_count() == 40);
  CHECK(&inputs.cost().graph() == &inputs.graph());
  CHECK(&inputs.cost().platform() == &inputs.platform());
  CHECK(inputs.context().seed == 3);
  CHECK(inputs.context().config == nullptr);
  CHECK(inputs.scenario().empty());
  // The same inputs and seed give the same graph.
  const RunInputs again({"hetero-server", "random:ops=40,precision=fp16", "", "", "", 3, nullptr});
  CHECK(again.graph().op_count() == inputs.graph().op_count());
  CHECK(again.cost().op_time(0, 0) == inputs.cost().op_time(0, 0));
}

TEST_CASE("run inputs refuse a missing file, naming it") {
  CHECK_THROWS_AS(RunInputs({"hetero-server", "random:ops=10", "", "no-such-scenario.json", "", 0, nullptr}),
                  InputError);
  CHECK_THROWS_AS(
      RunInputs({"hetero-server", "random:ops=10", "no-such-calibration.json", "", "", 0, nullptr}),
      InputError);
  const std::string scenario = std::string(HS_SOURCE_DIR) + "/results/interference_study/gpu-slowdown.json";
  CHECK_FALSE(RunInputs({"hetero-server", "random:ops=10", "", scenario, "", 0, nullptr}).scenario().empty());
}
