// What makes the GPU models transfer to a GPU they were not fitted on (issue 10): the architecture traits
// and software-stack features on known GPUs, their path from a platform file, the wave model's refit on
// the left-out GPU's architecture (which must never see the left-out GPU), and the learned model's file
// version.
#include "cli_support.hpp"
#include "sim/error.hpp"
#include "sim/gpu_architecture.hpp"
#include "sim/learned_model.hpp"
#include "sim/platform.hpp"
#include "validation/deepbench.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <map>

using namespace hs;
using namespace hs::validation;

namespace {

float feature(const std::vector<float>& f, const std::string& name) {
  const auto& names = learned_feature_names();
  const auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return f.at(static_cast<std::size_t>(it - names.begin()));
}

const std::string kDir = HS_SOURCE_DIR "/validation";

// Three GPUs: a and c of one architecture, b of another; each point's time from the wave model with a
// per-GPU launch cost.
std::vector<DeepBenchPoint> synthetic() {
  std::vector<DeepBenchPoint> points;
  for (const char* gpu : {"a", "b", "c"})
    for (int i = 0; i < 24; ++i) {
      DeepBenchPoint p;
      p.gpu = gpu;
      p.precision = "fp32";
      p.index = i;
      p.point.kind = "gemm";
      p.shape = {128.0 * (1 + i), 32.0 * (1 + i % 5), 512.0 * (1 + i % 3)};
      p.device.peak_flops = gpu[0] == 'b' ? 8e12 : 15e12;
      p.device.bandwidth = 900e9;
      p.device.units = gpu[0] == 'a' ? 80 : 40;
      p.device.boost_clock_mhz = 1500;
      p.device.power_limit_watts = 250;
      p.device.architecture = gpu[0] == 'b' ? "Turing" : "Pascal";
      WaveParams w;
      w.launch_seconds = gpu[0] == 'b' ? 5e-6 : 40e-6;
      p.point.seconds = gemm_wave_time(p.shape, p.device, w).seconds;
      points.push_back(p);
    }
  return points;
}

// synthetic() with c made a's double (a's SMs) with every problem 25 % slower.
std::vector<DeepBenchPoint> slower_double_of_a() {
  auto points = synthetic();
  std::map<int, double> a_seconds;
  for (const auto& p : points)
    if (p.gpu == "a") a_seconds[p.index] = p.point.seconds;
  for (auto& p : points)
    if (p.gpu == "c") {
      p.device.units = 80;
      p.point.seconds = 1.25 * a_seconds.at(p.index);
    }
  return points;
}

bool same(const WaveParams& x, const WaveParams& y) {
  return x.peak_efficiency == y.peak_efficiency && x.launch_seconds == y.launch_seconds &&
         x.tile_k_overhead == y.tile_k_overhead && x.memory_efficiency == y.memory_efficiency;
}

} // namespace

TEST_CASE("architecture traits: vendor and generation of known architectures, none for unknown ones") {
  const ArchitectureTraits volta = architecture_traits("Volta");
  CHECK(volta.known);
  CHECK_FALSE(volta.amd);
  CHECK(volta.generation == 7.0);
  CHECK(architecture_traits("pascal").generation == 6.0); // case does not matter
  CHECK(architecture_traits("Vega").amd);
  CHECK(architecture_traits("Vega").generation == 5.0);
  CHECK_FALSE(architecture_traits("Maxwell").amd);
  CHECK_FALSE(architecture_traits("GCN7-unknown").known);
  // From a CUDA compute capability, as hs_measure_cuda records it.
  CHECK(nvidia_architecture("7.0") == "Volta");
  CHECK(nvidia_architecture("7.5") == "Turing");
  CHECK(nvidia_architecture("8.6") == "Ampere");
  CHECK(nvidia_architecture("8.9") == "Ada");
  CHECK(nvidia_architecture("9.0") == "Hopper");
  CHECK(nvidia_architecture("") == "");
  CHECK(architecture_traits(nvidia_architecture("9.0")).generation == 9.0);
}

TEST_CASE("the learned features of the committed V100: architecture, HBM and software stack") {
  const auto sheets = load_gpu_datasheets(kDir + "/gpu_datasheets.csv");
  const auto points = load_deepbench(kDir + "/measurements/deepbench", "gemm", sheets);
  const auto v100 = std::find_if(points.begin(), points.end(), [](const DeepBenchPoint& p) {
    return p.gpu == "V100" && p.precision == "fp32";
  });
  REQUIRE(v100 != points.end());
  const auto f = learned_features(v100->shape, v100->device, false, WaveParams{});
  CHECK(feature(f, "vendor_amd") == 0.0f);
  CHECK(feature(f, "architecture_generation") == 7.0f);
  CHECK(feature(f, "hbm") == 1.0f);
  CHECK(feature(f, "driver_version") == doctest::Approx(418.67));
  CHECK(feature(f, "runtime_version") == doctest::Approx(10.1));
  CHECK(feature(f, "dnn_version") == doctest::Approx(7.6));
  // An unknown architecture and stack are missing values, not zeros.
  WaveDevice bare = v100->device;
  bare.architecture = "";
  bare.memory_type = "";
  bare.driver_version = bare.runtime_version = bare.dnn_version = 0;
  const auto g = learned_features(v100->shape, bare, false, WaveParams{});
  for (const char* name :
       {"vendor_amd", "architecture_generation", "hbm", "driver_version", "runtime_version", "dnn_version"})
    CHECK(std::isnan(feature(g, name)));
  // The layout of B is a feature: DeepBench's m=512 n=16 k=512 NT row.
  const auto nt = std::find_if(points.begin(), points.end(),
                               [](const DeepBenchPoint& p) { return p.shape.transposed_b; });
  REQUIRE(nt != points.end());
  CHECK(feature(learned_features(nt->shape, nt->device, false, WaveParams{}), "transposed_b") == 1.0f);
  CHECK(std::isnan(feature(f, "conv_window"))); // a GEMM has no filter window
  // DeepBench's first V100 convolution: a 20x5 filter at stride 2.
  const auto convs = load_deepbench(kDir + "/measurements/deepbench", "conv", sheets);
  REQUIRE_FALSE(convs.empty());
  REQUIRE(convs.front().gpu == "V100");
  const auto c = learned_features(convs.front().shape, convs.front().device, true, WaveParams{});
  CHECK(feature(c, "conv_window") == 100.0f);
  CHECK(feature(c, "conv_stride") == 2.0f);
  CHECK(feature(c, "convolution") == 1.0f);
}

TEST_CASE("a platform's compute units carry architecture, memory type and software to the wave device") {
  const auto platform = [](const std::string& extra) {
    return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "g0", "kind": "gpu", "peak": {"fp32": 15e12}, "memory": {"bandwidth": 900e9, "capacity": "16GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 80, "boost_clock_mhz": 1530, )" +
                              extra + R"( "source": "test"}}], "links": []})",
                          "w.json");
  };
  const Platform p = platform(R"("architecture": "Volta", "memory_type": "HBM2", "driver_version": 418.67,
                                 "runtime_version": 10.1, "dnn_version": 7.6,)");
  const WaveDevice d = wave_device(p.devices[0], "fp32");
  CHECK(d.architecture == "Volta");
  CHECK(d.memory_type == "HBM2");
  CHECK(d.driver_version == 418.67);
  CHECK(d.runtime_version == 10.1);
  CHECK(d.dnn_version == 7.6);
  CHECK_THROWS_WITH_AS(platform(R"("runtime_version": -1,)"), doctest::Contains("runtime_version"),
                       InputError);
}

TEST_CASE("the wave model's architecture refit uses the left-out GPU's kin, never the GPU itself") {
  auto points = synthetic();
  DeepBenchResult first;
  evaluate_deepbench_wave(points, first);
  // b has no kin: its parameters are the shared ones. a and c refit on each other.
  CHECK(same(first.wave_fit_without.at("b"), first.wave_fit_shared_without.at("b")));
  CHECK_FALSE(same(first.wave_fit_without.at("a"), first.wave_fit_shared_without.at("a")));
  // The refit learns a's kin c's launch cost (40 us) where the shared fit also saw b's 5 us.
  CHECK(std::abs(first.wave_fit_without.at("a").launch_seconds - 40e-6) <
        std::abs(first.wave_fit_shared_without.at("a").launch_seconds - 40e-6));
  for (auto& p : points)
    if (p.gpu == "c") p.point.seconds *= 10;
  DeepBenchResult second;
  evaluate_deepbench_wave(points, second);
  CHECK(same(second.wave_fit_without.at("c"), first.wave_fit_without.at("c")));
  CHECK(same(second.wave_fit_shared_without.at("c"), first.wave_fit_shared_without.at("c")));
  CHECK_FALSE(same(second.wave_fit_without.at("a"), first.wave_fit_without.at("a")));
}

TEST_CASE("a version 1 learned model file is refused, saying why") {
  const auto dir = hs::test::scratch_dir("learned", "version1");
  const auto file =
      hs::test::write_file(dir / "old.json", R"({"format": "heterosim-learned-model", "version": 1,
      "features": [], "wave_model": {}, "source": "old", "booster": {}})");
  CHECK_THROWS_WITH_AS(LearnedModel::load(file.string()), doctest::Contains("version 1 models"), InputError);
}

TEST_CASE("the twin transfer predicts a GPU from its architecture kin's measured times, scaled by the wave "
          "model") {
  // Predicting a from c is 25 % too slow, c from a 20 % too fast, whatever the wave parameters, since the
  // two datasheets are the same.
  auto points = slower_double_of_a();
  DeepBenchResult res;
  evaluate_deepbench_wave(points, res);
  evaluate_deepbench_twins(points, res);
  CHECK(res.twin_scaled.count("b") == 0); // no kin
  CHECK(res.twin_scaled.at("a").count == 24);
  CHECK(res.twin_scaled.at("a").mape == doctest::Approx(25));
  CHECK(res.twin_scaled.at("a").mean_signed == doctest::Approx(25));
  CHECK(res.twin_scaled.at("c").mape == doctest::Approx(20));
  CHECK(res.twin_scaled_all.mape == doctest::Approx(22.5));
  CHECK(res.twin_unscaled_all.mape == doctest::Approx(22.5));
  // With c's datasheet at half a's SMs, the scaled transfer corrects by the wave model's ratio and the
  // unscaled one does not.
  for (auto& p : points)
    if (p.gpu == "c") p.device.units = 40;
  DeepBenchResult halved;
  evaluate_deepbench_wave(points, halved);
  evaluate_deepbench_twins(points, halved);
  CHECK(halved.twin_unscaled_all.mape == doctest::Approx(22.5));
  CHECK(halved.twin_scaled_all.mape != doctest::Approx(22.5));
}

TEST_CASE(
    "siblings: GPUs alike to a datasheet model whose measured times disagree are reported, others not") {
  // a and c share architecture, memory type and (absent) software stack, and every datasheet figure: the
  // model must put them at 1:1, while c was timed 25 % slower.
  auto points = slower_double_of_a();
  DeepBenchResult res;
  evaluate_deepbench_wave(points, res);
  evaluate_deepbench_twins(points, res);
  REQUIRE(res.siblings.size() == 1);
  CHECK(res.siblings[0].first == "a");
  CHECK(res.siblings[0].second == "c");
  CHECK(res.siblings[0].problems == 24);
  CHECK(res.siblings[0].measured_ratio == doctest::Approx(1.25));
  CHECK(res.siblings[0].wave_ratio == doctest::Approx(1.0));
  // Another cuDNN on c: the libraries differ, so the pair says nothing about the datasheets.
  for (auto& p : points)
    if (p.gpu == "c") p.device.dnn_version = 7.6;
  DeepBenchResult other_stack;
  evaluate_deepbench_wave(points, other_stack);
  evaluate_deepbench_twins(points, other_stack);
  CHECK(other_stack.siblings.empty());
}
