// The learned cost model: its file loads and predicts the same numbers on rerun, training is
// deterministic, a calibration entry can select it, and leave-one-GPU-out never trains on the left-out GPU.
// Without XGBoost in the build, a calibration naming a learned model is refused with the reason.
#include "cli_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/learned_model.hpp"
#include "validation/learned_fit.hpp"

#include <doctest/doctest.h>

using namespace hs;
using namespace hs::validation;

namespace {

// Three GPUs that differ in SMs and peak; times from the wave model with a size-dependent twist the
// trees can learn.
std::vector<DeepBenchPoint> synthetic(const std::string& kind) {
  std::vector<DeepBenchPoint> points;
  for (const char* gpu : {"a", "b", "c"})
    for (int i = 0; i < 30; ++i) {
      DeepBenchPoint p;
      p.gpu = gpu;
      p.precision = "fp32";
      p.index = i;
      p.point.kind = kind;
      p.shape = {128.0 * (1 + i), 32.0 * (1 + i % 5), 512.0 * (1 + i % 3)};
      p.device.peak_flops = gpu[0] == 'c' ? 8e12 : 15e12;
      p.device.bandwidth = 900e9;
      p.device.units = gpu[0] == 'a' ? 80 : 40;
      p.device.boost_clock_mhz = 1500;
      p.device.power_limit_watts = 250;
      p.point.seconds = gemm_wave_time(p.shape, p.device, WaveParams{}).seconds * (1.0 + 0.3 * (i % 2));
      points.push_back(p);
    }
  return points;
}

std::vector<const DeepBenchPoint*> pointers(const std::vector<DeepBenchPoint>& v) {
  std::vector<const DeepBenchPoint*> out;
  for (const auto& p : v)
    out.push_back(&p);
  return out;
}

} // namespace

TEST_CASE("a learned model file loads and predicts the same numbers; training twice gives the same file") {
  if (!learned_models_built()) return; // covered by the refusal test below
  const auto points = synthetic("gemm");
  const LearnedModel a = train_learned(pointers(points), WaveParams{}, "test");
  const LearnedModel b = train_learned(pointers(points), WaveParams{}, "test");
  CHECK(a.file_text() == b.file_text());
  const auto dir = hs::test::scratch_dir("learned", "roundtrip");
  const auto file = hs::test::write_file(dir / "model.json", a.file_text());
  const LearnedModel loaded = LearnedModel::load(file.string());
  for (const auto& p : points)
    CHECK(loaded.seconds(p.shape, p.device, false) == a.seconds(p.shape, p.device, false));
  // It learned something: the odd points are 30 % slower than the wave model says.
  CHECK(a.seconds(points[1].shape, points[1].device, false) >
        1.1 * gemm_wave_time(points[1].shape, points[1].device, WaveParams{}).seconds);
}

TEST_CASE("leave one GPU out trains the learned model without the left-out GPU's points") {
  if (!learned_models_built()) return;
  auto gemm = synthetic("gemm");
  const auto conv = synthetic("conv2d");
  DeepBenchResult wave;
  evaluate_deepbench_wave(gemm, wave);
  const LearnedValidation first = evaluate_learned(gemm, conv, wave);
  for (auto& p : gemm)
    if (p.gpu == "c") p.point.seconds *= 10;
  const LearnedValidation second = evaluate_learned(gemm, conv, wave);
  // Same predictions for c, measured 10x slower: signed error s becomes (s + 100) / 10 - 100.
  CHECK(second.gemm_by_gpu.at("c").mean_signed ==
        doctest::Approx((first.gemm_by_gpu.at("c").mean_signed + 100) / 10 - 100));
  CHECK(second.conv_by_gpu.at("c").mean_signed == doctest::Approx(first.conv_by_gpu.at("c").mean_signed));
  CHECK(second.gemm_by_gpu.at("a").mean_signed != doctest::Approx(first.gemm_by_gpu.at("a").mean_signed));
}

TEST_CASE(
    "a calibration entry selects a learned model for its devices' GEMMs, or is refused without XGBoost") {
  const auto dir = hs::test::scratch_dir("learned", "calibration");
  const auto cal = hs::test::write_file(dir / "cal.json", R"({"format": "heterosim-calibration", "version": 2,
      "entries": [{"name": "g", "applies_to": {"kinds": ["gpu"]}, "measured": "synthetic",
                   "learned_model": "model.json"}]})");
  const Platform p =
      parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "g0", "kind": "gpu", "peak": {"fp32": 15e12, "fp16": 60e12}, "memory": {"bandwidth": 900e9, "capacity": "16GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 80, "boost_clock_mhz": 1500, "source": "test"}}],
      "links": []})",
                     "w.json");
  if (!learned_models_built()) {
    hs::test::write_file(dir / "model.json", "{}");
    CHECK_THROWS_WITH_AS(load_calibration(cal.string(), p), doctest::Contains("this build has no XGBoost"),
                         InputError);
    return;
  }
  const auto points = synthetic("gemm");
  const LearnedModel model = train_learned(pointers(points), WaveParams{}, "test");
  hs::test::write_file(dir / "model.json", model.file_text());
  GraphBuilder b("g");
  b.op("mm")
      .kind("gemm")
      .flops(2.0 * 1024 * 256 * 2048)
      .reads(4.0 * (1024 * 2048 + 2048 * 256))
      .writes(4.0 * 1024 * 256);
  b.op("mm16")
      .kind("gemm")
      .precision("fp16")
      .flops(2.0 * 1024 * 256 * 2048)
      .reads(2.0 * (1024 * 2048 + 2048 * 256))
      .writes(2.0 * 1024 * 256);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p, load_calibration(cal.string(), p));
  // As ratios: Approx's default tolerance is absolute near zero, and these are microseconds.
  CHECK(cost.op_time(0, 0) / model.seconds({1024, 256, 2048}, wave_device(p.devices[0], "fp32"), false) ==
        doctest::Approx(1.0));
  // Trained on fp32 alone: an fp16 GEMM is the wave model's, which the trees correct, not theirs.
  REQUIRE(model.precisions() == std::vector<std::string>{"fp32"});
  const GemmShape half{1024, 256, 2048, 1, 2};
  CHECK(cost.op_time(1, 0) / gemm_wave_time(half, wave_device(p.devices[0], "fp16"), model.wave()).seconds ==
        doctest::Approx(1.0));
  CHECK(cost.op_time(1, 0) / model.seconds(half, wave_device(p.devices[0], "fp16"), false) !=
        doctest::Approx(1.0));
  CHECK(calibration_usage_text(load_calibration(cal.string(), p), p).find("learned model") !=
        std::string::npos);
}

TEST_CASE("a learned model file says which precisions it covers; version 2 files cover fp32") {
  if (!learned_models_built()) return;
  const auto points = synthetic("gemm");
  const std::string text = train_learned(pointers(points), WaveParams{}, "test").file_text();
  const auto dir = hs::test::scratch_dir("learned", "precisions");
  const auto replaced = [](std::string t, const std::string& from, const std::string& to) {
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  const auto load = [&](const std::string& t) {
    return LearnedModel::load(hs::test::write_file(dir / "model.json", t).string());
  };
  const std::string fp32_only = "\"precisions\": [\n  \"fp32\"\n ],\n";
  CHECK(load(text).covers("fp32"));
  CHECK_FALSE(load(text).covers("fp16"));
  CHECK_THROWS_WITH_AS(load(replaced(text, fp32_only, "\"precisions\": [],\n")),
                       doctest::Contains("names no precision"), InputError);
  // Version 2 had no list (validate trained those on fp32 alone), and may not have one.
  CHECK(load(replaced(replaced(text, fp32_only, ""), "\"version\": 3", "\"version\": 2")).covers("fp32"));
  CHECK_THROWS_WITH_AS(load(replaced(text, "\"version\": 3", "\"version\": 2")),
                       doctest::Contains("a version 2 model has no precisions"), InputError);
}
