// The trees retrained with a measured GPU's own GEMMs (validation/measured_gpu_trees.hpp), what `validate`
// does with a set `hs_measure_cuda` wrote. Known answers: an A100 whose GEMMs all take 1.25 times the wave
// model's time, which the shipped model (wave model alone for it) puts 20 % too fast, is learned to within a
// few percent on the third held out and chosen over the set's roofline fit, which a set that follows a
// roofline keeps instead; the held-out third never reaches the fit (the trees are byte for byte the same
// whatever those points say); and the file validate writes costs the board as the fit did.
#include "cli_support.hpp"
#include "gpu_set_support.hpp"
#include "sim/calibration.hpp"
#include "sim/json_input.hpp"
#include "sim/learned_model.hpp"
#include "test_support.hpp"
#include "validation/deepbench.hpp"
#include "validation/gpu_platform.hpp"
#include "validation/measured_gpu_trees.hpp"
#include "validation/shipped_gpu_check.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace hs;
using namespace hs::validation;

namespace {

std::string deepbench_dir() {
  return hs::test::source_dir() + "/validation/measurements/deepbench";
}

std::string datasheets() {
  return hs::test::source_dir() + "/validation/gpu_datasheets.csv";
}

// 45 GEMMs over sizes a transformer and a square grid run: 30 to train on, 15 held out.
std::vector<hs::test::Gemm> grid() {
  std::vector<hs::test::Gemm> out;
  for (const double m : {128.0, 512.0, 1024.0, 2048.0, 4096.0})
    for (const double n : {256.0, 1024.0, 4096.0})
      for (const double k : {512.0, 1024.0, 4096.0})
        out.push_back({"gemm", 1, m, n, k});
  return out;
}

const WaveParams& shipped_wave(const Calibration& shipped) {
  REQUIRE(shipped.entries.size() == 1);
  REQUIRE(shipped.entries.front().wave);
  return *shipped.entries.front().wave;
}

// DeepBench's fp32 GEMMs of three GPUs: enough for the trees to learn beside, quick to train on.
struct SmallBase {
  std::vector<DeepBenchPoint> gemm =
      load_deepbench(deepbench_dir(), "gemm", load_gpu_datasheets(datasheets()));
  MeasuredGpuBase base() const {
    MeasuredGpuBase b;
    for (const auto& p : gemm)
      if (p.precision == "fp32" && (p.gpu == "V100" || p.gpu == "T4" || p.gpu == "TitanXp"))
        b.deepbench.push_back(&p);
    b.source = "three of DeepBench's GPUs";
    return b;
  }
};

// Rows of a committed DeepBench table for V100, T4 and TitanXp, every fourth: a folder `validate` reads
// in seconds.
void write_small_deepbench(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const char* table : {"gemm.csv", "conv.csv", "stacks.csv"}) {
    std::ifstream in(deepbench_dir() + "/" + table);
    std::ostringstream out;
    std::string line;
    std::getline(in, line);
    out << line << "\n";
    int kept = 0;
    while (std::getline(in, line)) {
      const std::string gpu = line.substr(0, line.find(','));
      if (gpu != "V100" && gpu != "T4" && gpu != "TitanXp") continue;
      if (std::string(table) == "stacks.csv" || kept++ % 4 == 0) out << line << "\n";
    }
    hs::test::write_file(dir / table, out.str());
  }
}

} // namespace

TEST_CASE(
    "a measured GPU's own GEMMs teach the trees its board, and its held-out third is scored, not learned") {
  if (!learned_models_built()) return;
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  const MeasurementSet set = hs::test::a100_set(grid(), shipped_wave(shipped), 1.25);
  const Platform gpu = parse_platform(gpu_platform_json(set), "this-gpu");
  const SmallBase small;
  const auto trees = learn_measured_gpu(set, gpu, shipped, small.base());
  REQUIRE(trees);
  CHECK(trees->board == "NVIDIA A100-SXM4-40GB");
  CHECK(trees->trained == 30);
  CHECK(trees->held_out.count == 15);
  // Without cuDNN's version the shipped trees leave this A100 to the wave model: 1 / 1.25 - 1.
  CHECK(trees->shipped_held_out.mean_signed == doctest::Approx(-20.0).epsilon(1e-6));
  CHECK(trees->held_out.mape < 6.0);
  REQUIRE(trees->held_out_errors.size() == 15);
  // Chosen over the set's roofline fit on the training GEMMs alone, in three folds that score each once; one
  // efficiency cannot fit these.
  REQUIRE(trees->inner_trees);
  CHECK(trees->inner_trees->count == 30);
  CHECK(trees->inner_roofline->count == 30);
  CHECK(trees->inner_trees->mape < trees->inner_roofline->mape);
  CHECK(trees->chosen);

  // The held-out points three times slower: the fit is the same trees, byte for byte, and they now miss
  // those points by what they learned from the others (1.25 / 3.75 - 1 = -67 %).
  MeasurementSet poisoned = set;
  for (std::size_t i = 1; i < poisoned.points.size(); i += 3)
    poisoned.points[i].p50 *= 3;
  const auto same = learn_measured_gpu(poisoned, gpu, shipped, small.base());
  REQUIRE(same);
  CHECK(same->model_text == trees->model_text);
  CHECK(same->held_out.mean_signed == doctest::Approx(-66.7).epsilon(0.05));

  // Nothing to learn: no GEMM named by its dimensions, or no DeepBench problem to learn beside.
  MeasurementSet unnamed = set;
  for (auto& p : unnamed.points)
    p.shape.erase("k");
  CHECK_FALSE(learn_measured_gpu(unnamed, gpu, shipped, small.base()));
  CHECK_FALSE(learn_measured_gpu(set, gpu, shipped, MeasuredGpuBase{}));
}

// The same A100 whose GEMMs follow a roofline exactly (70 % of its peak, 8 us a call): the set's own
// roofline fit is the better model, and the trees are not chosen.
MeasurementSet roofline_a100(const WaveParams& wave) {
  MeasurementSet set = hs::test::a100_set(grid(), wave, 1.0);
  for (auto& p : set.points)
    p.p50 = p.p95 = std::max(p.flops / (0.7 * 19.49e12), p.bytes / (0.8 * 1555e9)) + 8e-6;
  return set;
}

TEST_CASE("a set its roofline fit describes keeps the roofline fit for its GEMMs") {
  if (!learned_models_built()) return;
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  const MeasurementSet set = roofline_a100(shipped_wave(shipped));
  const auto trees = learn_measured_gpu(set, parse_platform(gpu_platform_json(set), "this-gpu"), shipped,
                                        SmallBase().base());
  REQUIRE(trees);
  REQUIRE(trees->inner_roofline);
  CHECK(trees->inner_roofline->mape < 0.5);
  CHECK_FALSE(trees->chosen);
}

TEST_CASE("the GPU's calibration names the trees' file, which costs the board as the fit did") {
  if (!learned_models_built()) return;
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  const MeasurementSet set = hs::test::a100_set(grid(), shipped_wave(shipped), 1.25);
  const Platform gpu = parse_platform(gpu_platform_json(set), "this-gpu");
  const auto trees = learn_measured_gpu(set, gpu, shipped, SmallBase().base());
  REQUIRE(trees);
  CalibrationOut entry;
  entry.name = "measured";
  entry.applies_to.models = {trees->board};
  entry.roofline = false;
  CpuKernelValidation held_out;
  for (std::size_t i = 1; i < set.points.size(); i += 3)
    held_out.held_out.push_back({"gemm", set.points[i].label, set.points[i].p50, 0, 0});
  name_trees(entry, *trees, "learned-gpu.json", held_out);
  CHECK(*entry.held_out_mape_percent == doctest::Approx(trees->held_out.mape));
  CHECK(entry.measured.find("learned-gpu.json") != std::string::npos);

  const auto dir = hs::test::scratch_dir("measured_gpu_trees", "file");
  hs::test::write_file(dir / "learned-gpu.json", trees->model_text);
  hs::test::write_file(dir / "calibration-gpu.json", calibration_json({entry}, "test", "test"));
  const Calibration loaded = load_calibration((dir / "calibration-gpu.json").string(), gpu);
  MeasurementSet test = set;
  test.points.clear();
  for (std::size_t i = 1; i < set.points.size(); i += 3)
    test.points.push_back(set.points[i]);
  const auto check = check_shipped_gpu_model(test, gpu, loaded);
  REQUIRE(check);
  CHECK(check->costed_by.find("learned model") != std::string::npos);
  REQUIRE(check->signed_errors.size() == trees->held_out_errors.size());
  for (std::size_t i = 0; i < check->signed_errors.size(); ++i)
    CHECK(check->signed_errors[i] == doctest::Approx(trees->held_out_errors[i]).epsilon(1e-9));
}

// `validate` on the set `set` (a file in `dir`), writing to dir/out, beside DeepBench's tables in
// dir/deepbench (or none).
hs::test::Outcome validate_set(const std::filesystem::path& dir, const std::string& set,
                               const std::string& out, const std::string& deepbench = "deepbench") {
  return hs::test::heterosim(
      "validate --cpu " + (dir / set).string() +
      " --executions none --torch-models none --published-kernels none --quiet --out " +
      (dir / out).string() + " --deepbench " +
      (deepbench == "none" ? deepbench : (dir / deepbench).string()));
}

nlohmann::json json_file(const std::filesystem::path& path) {
  return nlohmann::json::parse(hs::test::slurp(path));
}

TEST_CASE("validate on a GPU set writes learned-gpu.json and names it in calibration-gpu.json") {
  const auto dir = hs::test::scratch_dir("measured_gpu_trees", "validate");
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  hs::test::write_file(dir / "gpu.json",
                       measurement_set_json(hs::test::a100_set(grid(), shipped_wave(shipped), 1.25)));
  write_small_deepbench(dir / "deepbench");
  const auto v = validate_set(dir, "gpu.json", "out");
  REQUIRE_MESSAGE(v.exit_code == 0, v.output);
  if (!learned_models_built()) {
    CHECK_FALSE(std::filesystem::exists(dir / "out" / "learned-gpu.json"));
    return;
  }
  const auto own = json_file(dir / "out" / "report.json")["cpu_kernels"]["own_trees"];
  CHECK(own["trained_gemms"] == 30);
  CHECK(own["trees"]["count"] == 15);
  CHECK(own["trees"]["mape_percent"].get<double>() < 6.0);
  CHECK(own["shipped_model"]["mean_signed_percent"].get<double>() == doctest::Approx(-20.0).epsilon(1e-6));
  CHECK(own["chosen"] == "trees");
  CHECK(json_file(dir / "out" / "calibration-gpu.json")["entries"][0]["learned_model"] == "learned-gpu.json");
  CHECK(hs::test::slurp(dir / "out" / "report.txt").find("own trees, held out") != std::string::npos);
  // run takes the file the calibration names, relative to it.
  const auto run = hs::test::heterosim("run --platform " + (dir / "out" / "this-gpu.json").string() +
                                       " --calibration " + (dir / "out" / "calibration-gpu.json").string() +
                                       " --workload random:ops=10 --out " + (dir / "run").string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  CHECK(run.output.find("learned-gpu.json") != std::string::npos);
}

TEST_CASE(
    "validate keeps a GPU set's roofline fit where the trees do no better, and says why it learned none") {
  if (!learned_models_built()) return;
  const auto dir = hs::test::scratch_dir("measured_gpu_trees", "kept");
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  write_small_deepbench(dir / "deepbench");
  // A set its roofline fit describes: no trees are written or named.
  hs::test::write_file(dir / "roofline.json", measurement_set_json(roofline_a100(shipped_wave(shipped))));
  const auto kept = validate_set(dir, "roofline.json", "kept");
  REQUIRE_MESSAGE(kept.exit_code == 0, kept.output);
  CHECK_FALSE(std::filesystem::exists(dir / "kept" / "learned-gpu.json"));
  CHECK_FALSE(json_file(dir / "kept" / "calibration-gpu.json")["entries"][0].contains("learned_model"));
  CHECK(json_file(dir / "kept" / "report.json")["cpu_kernels"]["own_trees"]["chosen"] == "roofline fit");
  // GEMMs that do not name their dimensions teach nothing, and the report says why.
  MeasurementSet unnamed = hs::test::a100_set(grid(), shipped_wave(shipped), 1.25);
  for (auto& p : unnamed.points)
    p.shape.erase("k");
  hs::test::write_file(dir / "unnamed.json", measurement_set_json(unnamed));
  const auto skipped = validate_set(dir, "unnamed.json", "unnamed");
  REQUIRE_MESSAGE(skipped.exit_code == 0, skipped.output);
  CHECK(hs::test::slurp(dir / "unnamed" / "report.txt").find("too few GEMMs named by m, n and k") !=
        std::string::npos);
  // Without DeepBench there is nothing to learn beside, and the report says so.
  const auto none = validate_set(dir, "roofline.json", "none", "none");
  REQUIRE_MESSAGE(none.exit_code == 0, none.output);
  CHECK(json_file(dir / "none" / "report.json")["cpu_kernels"]["own_trees_skipped"] ==
        "no DeepBench problems to learn beside (--deepbench none)");
}
