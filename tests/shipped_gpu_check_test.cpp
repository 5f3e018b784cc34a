// The shipped GPU model against a GPU measurement set (validation/shipped_gpu_check.hpp): what `validate`
// reports when `hs_measure_cuda` has timed a GPU the model was never fitted on. Known answers: a set whose
// GEMMs took 1.25 times what the wave model says, on the board the set describes, is predicted 20 % too
// fast in every group; the board facts NVML recorded reach the platform the check costs on.
#include "cli_support.hpp"
#include "gpu_set_support.hpp"
#include "sim/calibration.hpp"
#include "sim/json_input.hpp"
#include "sim/learned_model.hpp"
#include "sim/wave_model.hpp"
#include "validation/gpu_platform.hpp"
#include "validation/shipped_gpu_check.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace hs;
using namespace hs::validation;
using hs::test::a100_set;
using hs::test::Gemm;

namespace {

const std::vector<Gemm> kGemms = {{"gemm", 1, 1024, 1024, 1024},  {"gemm", 1, 4096, 2048, 512},
                                  {"linear", 1, 128, 4096, 1024}, {"linear", 1, 32, 1280, 5120},
                                  {"bmm", 16, 128, 128, 64},      {"bmm", 16, 128, 64, 128}};

} // namespace

TEST_CASE("the shipped GPU model on a measured GPU: a set 1.25x slower than the wave model reads -20 %") {
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  REQUIRE(shipped.entries.size() == 1);
  REQUIRE(shipped.entries.front().wave);
  const MeasurementSet m = a100_set(kGemms, *shipped.entries.front().wave, 1.25);
  const Platform gpu = parse_platform(gpu_platform_json(m), "this-gpu");
  const auto check = check_shipped_gpu_model(m, gpu, shipped);
  REQUIRE(check);
  CHECK(check->gemm.count == 6);
  CHECK(check->gemm.mean_signed == doctest::Approx(-20.0).epsilon(1e-6));
  CHECK(check->gemm.mape == doctest::Approx(20.0).epsilon(1e-6));
  REQUIRE(check->by_group.size() == 3);
  for (const char* group : {"gemm", "linear", "bmm"}) {
    CHECK(check->by_group.at(group).count == 2);
    CHECK(check->by_group.at(group).mean_signed == doctest::Approx(-20.0).epsilon(1e-6));
  }
  // Without cuDNN's version the trees do not apply: the check says so rather than naming them.
  CHECK(check->costed_by.find("wave model alone") != std::string::npos);
  // A board the trees were trained on by name is theirs, stack or not, and no longer reads -20 %.
  if (!learned_models_built()) return;
  const MeasurementSet board = a100_set(kGemms, *shipped.entries.front().wave, 1.25, "NVIDIA A100-PCIE-40GB");
  const auto by_trees =
      check_shipped_gpu_model(board, parse_platform(gpu_platform_json(board), "board"), shipped);
  REQUIRE(by_trees);
  CHECK(by_trees->costed_by.find("learned model") != std::string::npos);
  CHECK(by_trees->gemm.mean_signed != doctest::Approx(-20.0));
}

TEST_CASE("what NVML recorded reaches the measured GPU's platform: power limit, held clock, driver") {
  MeasurementSet m = a100_set(kGemms, WaveParams{}, 1.0);
  m.environment["cudnn"] = "90100"; // cudnnGetVersion of cuDNN 9.1.0
  const auto platform = nlohmann::json::parse(gpu_platform_json(m));
  const auto& units = platform["devices"][0]["compute_units"];
  CHECK(units["count"] == 108);
  CHECK(units["boost_clock_mhz"] == 1410.0);
  CHECK(units["sustained_clock_mhz"] == 1200.0);
  CHECK(units["driver_version"] == doctest::Approx(535.104));
  CHECK(units["dnn_version"] == doctest::Approx(9.1));
  CHECK(parse_platform(gpu_platform_json(m), "this-gpu").devices.front().units.power_limit_watts ==
        doctest::Approx(250.0));
  // With the whole stack known, an Ampere GPU (one architecture past DeepBench's Turing) is the trees'.
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  if (learned_models_built()) {
    const auto check = check_shipped_gpu_model(m, parse_platform(gpu_platform_json(m), "this-gpu"), shipped);
    REQUIRE(check);
    CHECK(check->costed_by.find("learned model") != std::string::npos);
  }
  // A set without GEMMs named by their dimensions has nothing for the check.
  MeasurementSet unnamed = m;
  for (auto& p : unnamed.points)
    p.shape.erase("k");
  CHECK_FALSE(check_shipped_gpu_model(unnamed, parse_platform(gpu_platform_json(m), "this-gpu"), shipped));
}

TEST_CASE("validate on a GPU set with named GEMMs reports the shipped model's error on them") {
  const auto dir = hs::test::scratch_dir("shipped_gpu_check", "validate");
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  hs::test::write_file(dir / "gpu.json",
                       measurement_set_json(a100_set(kGemms, *shipped.entries.front().wave, 2)));
  const auto out = dir / "out";
  const auto v = hs::test::heterosim(
      "validate --cpu " + (dir / "gpu.json").string() +
      " --executions none --deepbench none --torch-models none --quiet --out " + out.string());
  REQUIRE_MESSAGE(v.exit_code == 0, v.output);
  const auto report = nlohmann::json::parse(hs::test::slurp(out / "report.json"));
  const auto& check = report["cpu_kernels"]["shipped_gpu_model"];
  CHECK(check["gemm"]["count"] == 6);
  CHECK(check["gemm"]["mean_signed_percent"].get<double>() == doctest::Approx(-50.0).epsilon(1e-6));
  CHECK(hs::test::slurp(out / "report.txt").find("shipped model, GEMMs") != std::string::npos);
}
