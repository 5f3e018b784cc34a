// The learned cost model: its file loads and predicts the same numbers on rerun, training is
// deterministic, a calibration entry can select it, and leave-one-GPU-out never trains on the left-out GPU.
// Without XGBoost in the build, a calibration naming a learned model is refused with the reason.
#include "cli_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/gpu_architecture.hpp"
#include "sim/graph_builder.hpp"
#include "sim/learned_model.hpp"
#include "validation/error_stats.hpp"
#include "validation/learned_fit.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>

using namespace hs;
using namespace hs::validation;

namespace {

// Feature rows as the trees see them: a NaN is a missing value, the same as another NaN (operator== on
// the vectors would call two rows with any missing feature different).
bool same_features(const std::vector<float>& a, const std::vector<float>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); });
}

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
      p.device.driver_version = 418.67; // the stack the trees require of a device (untrained_reason)
      p.device.runtime_version = 10.1;
      p.device.dnn_version = 7.6;
      p.point.seconds = gemm_wave_time(p.shape, p.device, WaveParams{}).seconds * (1.0 + 0.3 * (i % 2));
      points.push_back(p);
    }
  return points;
}

// The same, GPUs a and b of `ab`'s architecture and c of `c`'s.
std::vector<DeepBenchPoint> of_architectures(const std::string& kind, const std::string& ab,
                                             const std::string& c) {
  auto points = synthetic(kind);
  for (auto& p : points)
    p.device.architecture = p.gpu == "c" ? c : ab;
  return points;
}

std::vector<const DeepBenchPoint*> pointers(const std::vector<DeepBenchPoint>& v) {
  std::vector<const DeepBenchPoint*> out;
  for (const auto& p : v)
    out.push_back(&p);
  return out;
}

// A 1024 x 256 x 2048 GEMM of `precision` (elements of `bytes`) named `name`.
void add_gemm(GraphBuilder& b, const std::string& name, const std::string& precision, double bytes) {
  b.op(name)
      .kind("gemm")
      .precision(precision)
      .flops(2.0 * 1024 * 256 * 2048)
      .reads(bytes * (1024 * 2048 + 2048 * 256))
      .writes(bytes * 1024 * 256);
}

} // namespace

TEST_CASE("a learned model file loads and predicts the same numbers, training twice gives the same file") {
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
  const LearnedValidation first = evaluate_learned(gemm, conv, {}, wave);
  for (auto& p : gemm)
    if (p.gpu == "c") p.point.seconds *= 10;
  const LearnedValidation second = evaluate_learned(gemm, conv, {}, wave);
  // Same predictions for c, measured 10x slower: signed error s becomes (s + 100) / 10 - 100.
  CHECK(second.gemm_by_gpu.at("c").mean_signed ==
        doctest::Approx((first.gemm_by_gpu.at("c").mean_signed + 100) / 10 - 100));
  CHECK(second.conv_by_gpu.at("c").mean_signed == doctest::Approx(first.conv_by_gpu.at("c").mean_signed));
  CHECK(second.gemm_by_gpu.at("a").mean_signed != doctest::Approx(first.gemm_by_gpu.at("a").mean_signed));
  // The constant per GPU moves with c's times by the same rule; what is left after it is c's shape error.
  CHECK(second.gemm_constant_by_gpu.at("c") ==
        doctest::Approx((first.gemm_constant_by_gpu.at("c") + 100) / 10 - 100));
  CHECK(second.conv_constant_by_gpu.at("c") == doctest::Approx(first.conv_constant_by_gpu.at("c")));
  CHECK(first.gemm_constant_out.count == first.gemm.count);
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
  add_gemm(b, "mm", "fp32", 4.0);
  add_gemm(b, "mm16", "fp16", 2.0);
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

TEST_CASE("a convolution's gradient is the gradient trees' where a model has them, else the roofline's") {
  if (!learned_models_built()) return;
  const auto dir = hs::test::scratch_dir("learned", "gradients");
  const Platform p =
      parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "g0", "kind": "gpu", "peak": {"fp32": 15e12}, "memory": {"bandwidth": 900e9, "capacity": "16GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 80, "boost_clock_mhz": 1500,
       "driver_version": 418.67, "runtime_version": 10.1, "dnn_version": 7.6, "source": "test"}}],
      "links": []})",
                     "w.json");
  // The data gradient of a 3x3 convolution of 64 channels over 2 x 56 x 56 pixels.
  GraphBuilder b("g");
  auto dx = b.op("conv.dgrad").kind("conv2d").flops(2.0 * 2 * 56 * 56 * 64 * 64 * 9).reads(4e6).writes(4e6);
  b.mutable_op(dx.id()).dims = {{"batch", 2}, {"cin", 64}, {"cout", 64},  {"kh", 3},  {"kw", 3},
                                {"oh", 56},   {"ow", 56},  {"stride", 1}, {"pass", 1}};
  const Graph g = std::move(b).build();
  const auto shape = conv_shape_of(g.op(0));
  REQUIRE(shape);
  const auto conv = synthetic("conv2d");
  std::vector<DeepBenchPoint> with = conv;
  for (const auto& c : conv) {
    DeepBenchPoint grad = c;
    grad.shape = conv_gemm(c.shape.m, c.shape.k, c.shape.n, 1, 1, 4, 1, 1);
    with.push_back(grad);
  }
  const auto cal = hs::test::write_file(dir / "cal.json", R"({"format": "heterosim-calibration", "version": 2,
      "entries": [{"name": "g", "applies_to": {"kinds": ["gpu"]}, "measured": "synthetic",
                   "learned_model": "model.json"}]})");
  const auto cost_with = [&](const std::vector<DeepBenchPoint>& points) {
    const LearnedModel model = train_learned(pointers(points), WaveParams{}, "test");
    hs::test::write_file(dir / "model.json", model.file_text());
    return std::make_pair(CostModel(g, p, load_calibration(cal.string(), p)).op_time(0, 0),
                          model.seconds(*shape, wave_device(p.devices[0], "fp32"), true));
  };
  const auto [trees, expected] = cost_with(with);
  CHECK(trees / expected == doctest::Approx(1.0));
  CHECK(cost_with(conv).first == CostModel(g, p).op_time(0, 0)); // no gradient trees: the roofline
}

TEST_CASE("a learned model file says which precisions it covers, files of earlier versions are refused") {
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
  // Version 5 models took published kernels in row-major order, where this build gives the BLAS call.
  CHECK_THROWS_WITH_AS(load(replaced(text, "\"version\": 6", "\"version\": 5")),
                       doctest::Contains("version 5 models were trained on features this build no longer"),
                       InputError);
  CHECK_THROWS_WITH_AS(load(replaced(text, "\"version\": 6", "\"version\": 7")),
                       doctest::Contains("unsupported version"), InputError);
}

TEST_CASE("the trees cost only GPUs within one architecture of those they were trained on") {
  CHECK(architecture_traits("Maxwell").position == 1);
  CHECK(architecture_traits("Hopper").position == 7);
  CHECK(architecture_traits("Vega").position == 1);
  if (!learned_models_built()) return;
  const auto points = of_architectures("gemm", "Pascal", "Volta");
  const LearnedModel model = train_learned(pointers(points), WaveParams{}, "test");
  CHECK(model.architectures() == std::vector<std::string>{"Pascal", "Volta"});
  const auto reason = [&](const char* architecture) {
    WaveDevice d = points[0].device; // with its software stack
    d.architecture = architecture;
    return model.untrained_reason(d);
  };
  for (const char* near : {"Maxwell", "Pascal", "Turing"})
    CHECK(reason(near).empty());
  CHECK(reason("Ampere").find("more than one architecture newer") != std::string::npos);
  CHECK(reason("Kepler").find("more than one architecture older") != std::string::npos);
  CHECK(reason("Vega").find("no AMD GPU") != std::string::npos);
  CHECK(reason("").find("does not give its architecture") != std::string::npos);
  CHECK(reason("Fermi").find("not one HeteroSim knows") != std::string::npos);
  // Outside, the wave model's time exactly; inside, the trees' correction of it (the odd points are 30 %
  // slower than the wave model says, which the trees learned).
  WaveDevice device = points[1].device;
  const double wave = gemm_wave_time(points[1].shape, device, model.wave()).seconds;
  device.architecture = "Hopper";
  CHECK(model.seconds(points[1].shape, device, false) == wave);
  device.architecture = "Turing";
  CHECK(model.seconds(points[1].shape, device, false) > 1.1 * wave);
  // The file keeps the list; an unknown name in it is refused.
  const auto dir = hs::test::scratch_dir("learned", "architectures");
  const auto file = hs::test::write_file(dir / "model.json", model.file_text());
  CHECK(LearnedModel::load(file.string()).architectures() == model.architectures());
  std::string text = model.file_text();
  text.replace(text.find("\"Pascal\""), 8, "\"Fermi\"");
  CHECK_THROWS_WITH_AS(LearnedModel::load(hs::test::write_file(dir / "bad.json", text).string()),
                       doctest::Contains("unknown architecture 'Fermi'"), InputError);
}

TEST_CASE("a convolution's gradients are learned as passes of their own and held out with their GPU") {
  if (!learned_models_built()) return;
  const auto gemm = synthetic("gemm");
  const auto conv = synthetic("conv2d");
  // Every GPU's weight gradients, twice as slow as the wave model says on the even problems.
  std::vector<DeepBenchPoint> backward;
  for (const auto& p : conv) {
    DeepBenchPoint g = p;
    g.shape = conv_gemm(p.shape.m, p.shape.k, p.shape.n, 1, 1, 4, 1, 2);
    g.point.seconds = gemm_wave_time(g.shape, g.device, WaveParams{}).seconds * (g.index % 2 ? 1.0 : 2.0);
    backward.push_back(g);
  }
  DeepBenchResult wave;
  evaluate_deepbench_wave(gemm, wave);
  const LearnedValidation first = evaluate_learned(gemm, conv, backward, wave);
  REQUIRE(first.conv_weight_grad.count == 90);
  CHECK(first.conv_data_grad.count == 0);
  // The gradient trees learned the slow problems: better than the wave model alone on them.
  CHECK(first.conv_weight_grad.mape < first.conv_weight_grad_wave.mape);
  for (auto& p : backward)
    if (p.gpu == "c") p.point.seconds *= 10;
  const LearnedValidation second = evaluate_learned(gemm, conv, backward, wave);
  // c's gradients never train the trees that cost them; the other GPUs' trees do see them.
  CHECK(second.conv_weight_grad_by_gpu.at("c").mean_signed ==
        doctest::Approx((first.conv_weight_grad_by_gpu.at("c").mean_signed + 100) / 10 - 100));
  CHECK(second.conv_weight_grad_by_gpu.at("a").mean_signed !=
        doctest::Approx(first.conv_weight_grad_by_gpu.at("a").mean_signed));
  // The forward trees never see a gradient: the forward figures stay as they were.
  CHECK(second.conv_by_gpu.at("a").mean_signed == first.conv_by_gpu.at("a").mean_signed);
  // The pass is a feature: a weight gradient's shape as a forward pass gives the trees another row.
  const GemmShape dw = backward[0].shape;
  GemmShape as_forward = dw;
  as_forward.conv_pass = 0;
  const WaveDevice& d = backward[0].device;
  const auto dw_row = learned_features(dw, d, true, WaveParams{});
  const auto forward_row = learned_features(as_forward, d, true, WaveParams{});
  CHECK(same_features(dw_row, dw_row));
  CHECK_FALSE(same_features(dw_row, forward_row));
}

TEST_CASE("leave one GPU out costs a GPU of an architecture the trees never came near by the wave model") {
  if (!learned_models_built()) return;
  const auto gemm = of_architectures("gemm", "Maxwell", "Hopper");
  const auto conv = of_architectures("conv2d", "Maxwell", "Hopper");
  DeepBenchResult wave;
  evaluate_deepbench_wave(gemm, wave);
  const LearnedValidation v = evaluate_learned(gemm, conv, {}, wave);
  std::vector<double> expected;
  for (const auto& p : gemm)
    if (p.gpu == "c")
      expected.push_back(percent_error(
          gemm_wave_time(p.shape, p.device, wave.wave_fit_shared_without.at("c")).seconds, p.point.seconds));
  CHECK(v.gemm_by_gpu.at("c").mean_signed / summarize(expected).mean_signed == doctest::Approx(1.0));
  // Leaving out a (Maxwell, as b is), the trees trained on b and c cost it, and differ from the wave model.
  std::vector<double> wave_only;
  for (const auto& p : gemm)
    if (p.gpu == "a")
      wave_only.push_back(percent_error(
          gemm_wave_time(p.shape, p.device, wave.wave_fit_shared_without.at("a")).seconds, p.point.seconds));
  CHECK(v.gemm_by_gpu.at("a").mean_signed != doctest::Approx(summarize(wave_only).mean_signed));
}

TEST_CASE("run names the devices the trees leave to the wave model, with the wave model's held-out error") {
  if (!learned_models_built()) return;
  const auto dir = hs::test::scratch_dir("learned", "wave-only");
  const auto points = of_architectures("gemm", "Pascal", "Volta");
  const LearnedModel model = train_learned(pointers(points), WaveParams{}, "test");
  hs::test::write_file(dir / "model.json", model.file_text());
  const auto cal = hs::test::write_file(dir / "cal.json", R"({"format": "heterosim-calibration", "version": 2,
      "entries": [{"name": "g", "applies_to": {"kinds": ["gpu"]}, "measured": "synthetic",
                   "held_out_mape_percent": 16.5, "wave_held_out_mape_percent": 28.5,
                   "learned_model": "model.json"}]})");
  const Platform p =
      parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "new", "kind": "gpu", "peak": {"fp32": 60e12}, "memory": {"bandwidth": 3e12, "capacity": "80GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 132, "boost_clock_mhz": 1980, "architecture": "Hopper", "source": "test"}},
      {"name": "old", "kind": "gpu", "peak": {"fp32": 15e12}, "memory": {"bandwidth": 9e11, "capacity": "16GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 80, "boost_clock_mhz": 1500, "architecture": "Volta",
       "driver_version": 418.67, "runtime_version": 10.1, "dnn_version": 7.6, "source": "test"}},
      {"name": "bare", "kind": "gpu", "peak": {"fp32": 15e12}, "memory": {"bandwidth": 9e11, "capacity": "16GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {"count": 80, "boost_clock_mhz": 1500, "architecture": "Volta", "source": "test"}}],
      "links": [], "unreachable": [["new", "old"], ["new", "bare"], ["old", "bare"]]})",
                     "w.json");
  GraphBuilder b("g");
  add_gemm(b, "mm", "fp32", 4.0);
  const Graph g = std::move(b).build();
  const Calibration calibration = load_calibration(cal.string(), p);
  const CostModel cost(g, p, calibration);
  const GemmShape shape{1024, 256, 2048};
  CHECK(cost.op_time(0, 0) / gemm_wave_time(shape, wave_device(p.devices[0], "fp32"), model.wave()).seconds ==
        doctest::Approx(1.0));
  CHECK(cost.op_time(0, 1) / model.seconds(shape, wave_device(p.devices[1], "fp32"), false) ==
        doctest::Approx(1.0));
  const std::string text = calibration_usage_text(calibration, p);
  CHECK(text.find("; new: GEMMs by the wave model alone: Hopper is more than one architecture newer") !=
        std::string::npos);
  CHECK(text.find("held out for new, bare (the wave model, leave one GPU out): 28.5 %") != std::string::npos);
  CHECK(text.find("old: GEMMs") == std::string::npos);
  // The same GPU without its software stack: the trees never learned an NVIDIA GPU without a driver.
  CHECK(text.find("; bare: GEMMs by the wave model alone: the device does not give its software stack "
                  "(compute_units.driver_version, runtime_version, dnn_version)") != std::string::npos);
  CHECK(cost.op_time(0, 2) / gemm_wave_time(shape, wave_device(p.devices[2], "fp32"), model.wave()).seconds ==
        doctest::Approx(1.0));
  const auto json = calibration_usage_json(calibration, p);
  CHECK(json["entries"][0]["wave_model_only"].contains("new"));
  CHECK(json["entries"][0]["held_out_mape_percent_by_device"]["new"] == 28.5);
}

TEST_CASE("a published board the trees were trained on is costed by them by name, without a software stack, "
          "another board of its architecture is not") {
  if (!learned_models_built()) return;
  const auto deepbench = of_architectures("gemm", "Pascal", "Volta");
  // Board "l" (an Ada part, two architectures past Volta) timed through a framework that adds 20 us a call.
  auto published = synthetic("gemm");
  for (auto& p : published) {
    p.gpu = "l";
    p.device.architecture = "Ada";
    p.device.model = "NVIDIA L";
    p.point.seconds += 20e-6;
  }
  const PublishedTraining training{pointers(published), {{"l", 20e-6}}};
  const LearnedModel model = train_learned(pointers(deepbench), WaveParams{}, "test", training);
  REQUIRE(model.boards() == std::vector<std::string>{"NVIDIA L"});
  WaveDevice board = published[0].device;
  board.driver_version = board.runtime_version = board.dnn_version = 0; // a preset gives none
  CHECK(model.untrained_reason(board).empty());
  // The trees see the board as they were trained on it, with its stack hidden, whatever it gives.
  const GemmShape s = published[3].shape;
  CHECK(same_features(model.features(s, published[3].device, false), model.features(s, board, false)));
  WaveDevice with_stack = board;
  with_stack.dnn_version = 8;
  CHECK_FALSE(same_features(learned_features(s, with_stack, false, WaveParams{}),
                            learned_features(s, board, false, WaveParams{})));
  // They learned the kernel's time, the framework's 20 us taken off: the odd problems 30 % over the wave.
  const double wave = gemm_wave_time(s, board, WaveParams{}).seconds;
  CHECK(model.seconds(s, board, false) == doctest::Approx(1.3 * wave).epsilon(0.05));
  WaveDevice other = board;
  other.model = "NVIDIA L40";
  CHECK(model.untrained_reason(other).find("Ada is more than one architecture newer") != std::string::npos);
  // The boards survive the file.
  const auto dir = hs::test::scratch_dir("learned", "boards");
  const auto file = hs::test::write_file(dir / "model.json", model.file_text());
  const LearnedModel loaded = LearnedModel::load(file.string());
  CHECK(loaded.boards() == model.boards());
  CHECK(loaded.seconds(s, board, false) == model.seconds(s, board, false));
}

TEST_CASE(
    "a published timing stands for its kernel less the board's overhead per call, never below a quarter") {
  DeepBenchPoint p;
  p.gpu = "l";
  p.point.seconds = 50e-6;
  const PublishedTraining training{{}, {{"l", 20e-6}}};
  CHECK(published_kernel_seconds(p, training) == doctest::Approx(30e-6));
  p.point.seconds = 10e-6;
  CHECK(published_kernel_seconds(p, training) == doctest::Approx(2.5e-6));
  p.gpu = "other"; // no fit of its own: nothing taken off
  CHECK(published_kernel_seconds(p, training) == doctest::Approx(10e-6));
}
