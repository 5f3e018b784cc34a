// Calibration entries reach devices by name, kind or model string; one that reaches none is refused by
// name; version-1 files are still read; `validate` on a GPU measurement set writes a calibration and a
// platform for that GPU, which `run` then reports as calibrating it.
#include "cli_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace hs;
using hs::test::heterosim;
using hs::test::scratch_dir;
using hs::test::write_file;

namespace {

// Two GPUs of one model under different names, and a CPU.
Platform two_gpus() {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "two",
    "devices": [{"name": "left", "kind": "gpu", "model": "NVIDIA A100-SXM4-40GB", "peak": {"fp32": "10Tf"},
                 "memory": {"bandwidth": "1TBps", "capacity": "1GB"}, "power": {"idle": 1, "busy": 2}},
                {"name": "right", "kind": "gpu", "model": "NVIDIA A100-SXM4-40GB", "peak": {"fp32": "10Tf"},
                 "memory": {"bandwidth": "1TBps", "capacity": "1GB"}, "power": {"idle": 1, "busy": 2}},
                {"name": "host", "kind": "cpu", "peak": {"fp32": "1Tf"},
                 "memory": {"bandwidth": "100GBps", "capacity": "1GB"}, "power": {"idle": 1, "busy": 2}}],
    "links": [], "unreachable": [["left", "right"], ["left", "host"], ["right", "host"]]})",
                        "two.json");
}

std::string calibration(const std::string& entries) {
  return R"({"format": "heterosim-calibration", "version": 2, "source": "test", "entries": [)" + entries +
         "]}";
}

std::string entry(const std::string& name, const std::string& applies_to, double efficiency) {
  return R"({"name": ")" + name + R"(", "applies_to": )" + applies_to +
         R"(, "measured": "synthetic", "efficiency": {"gemm": )" + std::to_string(efficiency) + "}}";
}

Calibration load(const std::string& text, const Platform& p) {
  const auto dir = scratch_dir("calibration", "load");
  return load_calibration(write_file(dir / "cal.json", text).string(), p);
}

Graph one_gemm() {
  GraphBuilder b("g");
  b.op("mm").kind("gemm").flops(1e12);
  return std::move(b).build();
}

} // namespace

TEST_CASE("a calibration entry that matches no device is refused, naming the entry and the file") {
  const Platform p = two_gpus();
  CHECK_THROWS_WITH_AS(
      load(calibration(entry("v100-fit", R"({"models": ["Tesla V100-SXM2-16GB"]})", 0.5)), p),
      doctest::Contains("cal.json: entry 'v100-fit': matches no device"), InputError);
  CHECK_THROWS_WITH_AS(load(calibration(entry("x", R"({})", 0.5)), p), doctest::Contains("names no device"),
                       InputError);
}

TEST_CASE(
    "an optional entry (a library of boards) may calibrate nothing, a file that calibrates nothing fails") {
  const Platform p = two_gpus();
  const std::string v100 =
      entry("v100-board", R"({"models": ["Tesla V100-SXM2-16GB"], "optional": true})", 0.5);
  const Calibration c = load(calibration(v100 + "," + entry("a100", R"({"kinds": ["gpu"]})", 0.25)), p);
  CHECK(c.calibrated_devices(c.entries.at(0), p).empty());
  CHECK(c.calibrated_devices(c.entries.at(1), p) == std::vector<std::string>{"left", "right"});
  // Shadowed by a closer entry, an optional entry is no error either.
  const std::string gpus = entry("gpus", R"({"kinds": ["gpu"], "optional": true})", 0.5);
  const Calibration shadowed =
      load(calibration(gpus + "," + entry("a100", R"({"models": ["NVIDIA A100-SXM4-40GB"]})", 0.25)), p);
  CHECK(shadowed.calibrated_devices(shadowed.entries.at(0), p).empty());
  // But a file none of whose entries calibrates a device still changes nothing, which is refused.
  CHECK_THROWS_WITH_AS(load(calibration(v100), p),
                       doctest::Contains("cal.json: entries: no entry calibrates a device of platform 'two'"),
                       InputError);
  CHECK_THROWS_WITH_AS(load(calibration(entry("x", R"({"kinds": ["gpu"], "optional": "yes"})", 0.5)), p),
                       doctest::Contains("cal.json"), InputError);
}

TEST_CASE("an entry matching by kind calibrates every device of that kind, and only those") {
  const Platform p = two_gpus();
  const Calibration c = load(calibration(entry("all-gpus", R"({"kinds": ["gpu"]})", 0.25)), p);
  CHECK(c.calibrated_devices(c.entries.at(0), p) == std::vector<std::string>{"left", "right"});
  const Graph g = one_gemm();
  const CostModel cost(g, p, c), plain(g, p);
  CHECK(cost.op_time(0, 0) == doctest::Approx(1e12 / (10e12 * 0.25)));
  CHECK(cost.op_time(0, 1) == doctest::Approx(1e12 / (10e12 * 0.25)));
  CHECK(cost.op_time(0, 2) == doctest::Approx(plain.op_time(0, 2)));
  CHECK(calibration_usage_text(c, p).find("calibrated left, right: synthetic") != std::string::npos);
}

TEST_CASE("an entry matching a model string reaches devices whatever they are called, a name beats it") {
  const Platform p = two_gpus();
  const Calibration c = load(calibration(entry("a100", R"({"models": ["NVIDIA A100-SXM4-40GB"]})", 0.5) +
                                         "," + entry("right-only", R"({"devices": ["right"]})", 0.2)),
                             p);
  CHECK(c.calibrated_devices(c.entries.at(0), p) == std::vector<std::string>{"left"});
  CHECK(c.calibrated_devices(c.entries.at(1), p) == std::vector<std::string>{"right"});
  const auto usage = calibration_usage_json(c, p);
  CHECK(usage["entries"][1]["devices"].get<std::vector<std::string>>() == std::vector<std::string>{"right"});
  // Two entries that match a device equally closely: which one wins would be an accident of order.
  CHECK_THROWS_WITH_AS(load(calibration(entry("a", R"({"kinds": ["gpu"]})", 0.5) + "," +
                                        entry("b", R"({"kinds": ["gpu"]})", 0.4)),
                            p),
                       doctest::Contains("as closely as entry 'a'"), InputError);
}

TEST_CASE("version-1 calibrations are still read (keys are names or kinds), unknown versions are refused") {
  const Platform p = two_gpus();
  const Calibration c = load(R"({"format": "heterosim-calibration", "version": 1,
      "devices": {"gpu": {"efficiency": {"gemm": 0.5}}}})",
                             p);
  CHECK(c.calibrated_devices(c.entries.at(0), p) == std::vector<std::string>{"left", "right"});
  CHECK_THROWS_WITH_AS(load(R"({"format": "heterosim-calibration", "version": 3, "entries": []})", p),
                       doctest::Contains("unsupported version 3 (this build reads 1 and 2)"), InputError);
}

TEST_CASE("validate on a GPU measurement set writes that GPU's calibration and platform, which run reports") {
  const auto dir = scratch_dir("calibration", "gpu-set");
  std::string points;
  for (int i = 0; i < 9; ++i) {
    const double n = 512.0 * (1 + i % 3 + i / 3);
    const double flops = 2 * n * n * n, bytes = 12 * n * n;
    points += std::string(i ? "," : "") + R"({"kind": "gemm", "label": "g", "shape": {"n": )" +
              std::to_string(n) + R"(}, "flops": )" + std::to_string(flops) + R"(, "bytes": )" +
              std::to_string(bytes) + R"(, "repeats": 5, "p50_s": )" + std::to_string(20e-6 + flops / 9e12) +
              R"(, "p95_s": )" + std::to_string(21e-6 + flops / 9e12) + "}";
  }
  write_file(dir / "gpu.json",
             R"({"format": "heterosim-measurements", "version": 1, "device": "gpu0", "device_kind": "gpu",
      "environment": {"gpu_model": "NVIDIA L4", "multiprocessors": "58", "clock_khz": "2040000", "date": "today",
                      "compute_capability": "8.9", "cuda_runtime": "12040"},
      "peaks": {"fp32_flops": 30.3e12, "memory_bandwidth": 300e9}, "points": [)" +
                 points + "]}");
  const auto out = dir / "out";
  const auto v =
      heterosim("validate --cpu " + (dir / "gpu.json").string() +
                " --executions none --deepbench none --torch-models none --quiet --out " + out.string());
  REQUIRE_MESSAGE(v.exit_code == 0, v.output);
  CHECK_FALSE(std::filesystem::exists(out / "calibration-cpu.json"));
  const std::string cal = hs::test::slurp(out / "calibration-gpu.json");
  CHECK(cal.find("\"NVIDIA L4\"") != std::string::npos);
  CHECK(cal.find("GPU kernels on NVIDIA L4") != std::string::npos);
  CHECK(cal.find("CPU") == std::string::npos);
  // The platform carries what the learned model reads: the architecture and the CUDA runtime.
  const std::string platform = hs::test::slurp(out / "this-gpu.json");
  CHECK(platform.find(R"("architecture": "Ada")") != std::string::npos);
  CHECK(platform.find(R"("runtime_version": 12.4)") != std::string::npos);
  const auto r = heterosim("run --platform " + (out / "this-gpu.json").string() + " --calibration " +
                           (out / "calibration-gpu.json").string() + " --workload random:ops=10 --out " +
                           (dir / "run").string() + " --report-only");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("calibration 'NVIDIA L4'") != std::string::npos);
  CHECK(r.output.find("calibrated gpu0") != std::string::npos);
  const auto report = nlohmann::json::parse(hs::test::slurp(dir / "run" / "report.json"));
  CHECK(report["calibration"]["entries"][0]["devices"] == nlohmann::json::array({"gpu0"}));
  CHECK(report["calibration"]["entries"][0].contains("held_out_mape_percent"));
}

TEST_CASE("a calibration shipped in models/ is found by its name, an unknown name lists the shipped ones") {
  const Platform p = load_platform("workstation");
  CHECK(calibration_file("deepbench-gpu").ends_with("/models/calibration-deepbench-gpu.json"));
  const std::vector<std::string> shipped = shipped_calibration_names();
  CHECK(std::find(shipped.begin(), shipped.end(), "deepbench-gpu") != shipped.end());
  CHECK_THROWS_WITH_AS(load_calibration("deepbench-gpus", p),
                       doctest::Contains("did you mean 'deepbench-gpu'"), InputError);
  // A name that looks like a path is a file the user meant.
  CHECK_THROWS_WITH_AS(load_calibration("deepbench-gpu.json", p), doctest::Contains("no such file"),
                       InputError);
  if (!learned_models_built()) return; // the shipped one names a learned model
  const Calibration c = load_calibration("deepbench-gpu", p);
  REQUIRE(c.entries.size() == 1);
  CHECK(c.calibrated_devices(c.entries.front(), p) == std::vector<std::string>{"gpu0"});
  CHECK(c.entries.front().learned != nullptr);
}

TEST_CASE("run names the held-out error of a device's own model where the entry has one") {
  const Platform p = two_gpus();
  const Calibration c = load(calibration(R"({"name": "gpus", "applies_to": {"kinds": ["gpu"]},
      "measured": "synthetic", "held_out_mape_percent": 16.4, "efficiency": {"gemm": 0.5},
      "held_out_mape_percent_by_model": {"NVIDIA A100-SXM4-40GB": 12.5, "Tesla V100-SXM2-16GB": 19.0}})"),
                             p);
  const std::string text = calibration_usage_text(c, p);
  CHECK(text.find("held-out error 16.4 %") != std::string::npos);
  CHECK(text.find("held out for left, right (own model): 12.5 %") != std::string::npos); // one figure, once
  CHECK(text.find("19.0") == std::string::npos); // no device of that model
  const auto j = calibration_usage_json(c, p);
  CHECK(j["entries"][0]["held_out_mape_percent_by_device"]["left"].get<double>() == 12.5);
  CHECK_FALSE(j["entries"][0]["held_out_mape_percent_by_device"].contains("host"));
  CHECK_THROWS_WITH_AS(load(calibration(R"({"name": "g", "applies_to": {"kinds": ["gpu"]}, "measured": "m",
      "held_out_mape_percent_by_model": {"A": "twelve"}})"),
                            p),
                       doctest::Contains("held_out_mape_percent_by_model"), InputError);
}
