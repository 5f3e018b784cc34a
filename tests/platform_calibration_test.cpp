// A platform file may name the calibration its devices are costed by ("calibration": a shipped name, or a
// file beside it): every cost model built on the platform uses it unless a run names another, or "none".
#include "cli_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace hs;
using hs::test::heterosim;
using hs::test::scratch_dir;
using hs::test::write_file;

namespace {

// A GPU of 10 TF/s and a CPU; `calibration` is the platform's "calibration" member, or nothing when empty.
std::string platform_text(const std::string& calibration) {
  return R"({"format": "heterosim-platform", "version": 1, "name": "named",)" +
         (calibration.empty() ? std::string() : R"("calibration": ")" + calibration + R"(",)") + R"(
    "devices": [{"name": "gpu0", "kind": "gpu", "peak": {"fp32": "10Tf"}, "efficiency": {"default": 0.5},
                 "memory": {"bandwidth": "1TBps", "capacity": "4GB"}, "power": {"idle": 1, "busy": 2}},
                {"name": "cpu0", "kind": "cpu", "peak": {"fp32": "1Tf"}, "efficiency": {"default": 0.5},
                 "memory": {"bandwidth": "100GBps", "capacity": "4GB"}, "power": {"idle": 1, "busy": 2}}],
    "links": [{"name": "pcie", "ends": ["gpu0", "cpu0"], "bandwidth": "16GBps", "latency": "1us",
               "power": {"idle": 1, "busy": 2}}]})";
}

// Every GPU's GEMMs at a quarter of the peak.
const char* kQuarter = R"({"format": "heterosim-calibration", "version": 2, "source": "test", "entries": [
    {"name": "quarter", "applies_to": {"kinds": ["gpu"]}, "measured": "synthetic", "efficiency": {"gemm": 0.25}}]})";

// What loading the platform file throws (an InputError), or "" when it loads.
std::string load_error(const std::filesystem::path& file) {
  try {
    load_platform(file.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Graph one_gemm() {
  GraphBuilder b("g");
  b.op("mm").kind("gemm").flops(1e12);
  return std::move(b).build();
}

} // namespace

TEST_CASE("a platform's own calibration costs its devices unless a cost model is given another") {
  const auto dir = scratch_dir("platform-calibration", "beside");
  write_file(dir / "quarter.json", kQuarter);
  const Platform p = load_platform(write_file(dir / "p.json", platform_text("quarter.json")).string());
  REQUIRE(p.calibration);
  const Graph g = one_gemm();
  const CostModel own(g, p), none(g, p, Calibration{});
  // As ratios: Approx's tolerance is absolute near zero.
  CHECK(own.op_time(0, 0) / (1e12 / (10e12 * 0.25)) == doctest::Approx(1.0));
  CHECK(none.op_time(0, 0) / (1e12 / (10e12 * 0.5)) == doctest::Approx(1.0));
  CHECK(own.op_time(0, 1) == none.op_time(0, 1)); // the entry reaches GPUs only
}

TEST_CASE("a platform's calibration is found by path beside the file, by name in models/, or refused") {
  CHECK(platform_calibration_path("cal.json", "/a/b/p.json") == "/a/b/cal.json");
  CHECK(platform_calibration_path("sub/cal", "/a/p.json") == "/a/sub/cal");
  CHECK(platform_calibration_path("/x/cal.json", "/a/p.json") == "/x/cal.json");
  CHECK(platform_calibration_path("deepbench-gpu", "/a/p.json") == "deepbench-gpu");
  const auto dir = scratch_dir("platform-calibration", "refused");
  CHECK(
      load_error(write_file(dir / "p.json", platform_text("deepbench-gpv"))).find("p.json: calibration: ") !=
      std::string::npos);
  CHECK(load_error(dir / "p.json").find("deepbench-gpu") != std::string::npos); // did you mean
  // An entry for a kind the platform lacks is an error of the platform file, naming the entry.
  write_file(dir / "npu.json", R"({"format": "heterosim-calibration", "version": 2, "entries": [
      {"name": "npus", "applies_to": {"kinds": ["npu"]}, "measured": "synthetic", "efficiency": {"gemm": 0.5}}]})");
  const std::string error = load_error(write_file(dir / "q.json", platform_text("npu.json")));
  CHECK(error.find("q.json: calibration: ") != std::string::npos);
  CHECK(error.find("entry 'npus'") != std::string::npos);
}

TEST_CASE("run reports the platform's calibration, and --calibration none leaves the devices' figures") {
  const auto dir = scratch_dir("platform-calibration", "run");
  write_file(dir / "quarter.json", kQuarter);
  const auto platform = write_file(dir / "p.json", platform_text("quarter.json")).string();
  const auto run = [&](const std::string& extra, const std::string& out) {
    const auto r =
        heterosim("run --platform " + platform + " --workload bert-base --policy fastest-device --out " +
                  (dir / out).string() + " --report-only " + extra);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return std::pair{r.output, nlohmann::json::parse(hs::test::slurp(dir / out / "report.json"))};
  };
  const auto [own_text, own] = run("", "own");
  const auto [none_text, none] = run("--calibration none", "none");
  CHECK(own_text.find("calibration 'quarter'") != std::string::npos);
  CHECK(own["calibration"]["entries"][0]["devices"] == nlohmann::json::array({"gpu0"}));
  CHECK(none_text.find("calibration 'quarter'") == std::string::npos);
  CHECK_FALSE(none.contains("calibration"));
  CHECK(own["makespan_s"].get<double>() > 1.2 * none["makespan_s"].get<double>());
}
