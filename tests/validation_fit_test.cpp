// The calibration fit: it recovers known parameters from synthetic data, respects its bounds, and the
// calibration file it writes makes `heterosim run`'s cost model predict what the fit predicts.
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"
#include "validation/roofline_fit.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;

namespace {

// A device with peak 100 GFLOP/s and 10 GB/s; the truth: gemm 50 %, softmax 10 %, memory 80 %, 2 us launch,
// data up to 1 MB moving at 40 GB/s.
RooflineFit truth() {
  RooflineFit t;
  t.efficiency = {{"gemm", 0.5}, {"softmax", 0.1}};
  t.memory_efficiency = 0.8;
  t.launch_overhead = 2e-6;
  t.memory_tiers = {{1e6, 40e9}};
  return t;
}

std::vector<FitPoint> synthetic_points() {
  std::vector<FitPoint> pts;
  const RooflineFit t = truth();
  for (double n : {64.0, 128.0, 256.0, 512.0, 1024.0})
    pts.push_back({"gemm", 2 * n * n * n, 12 * n * n, 0, 100e9, 10e9});
  for (double n : {1e4, 1e5, 1e6, 1e7}) {
    pts.push_back({"elementwise", n, 12 * n, 0, 100e9, 10e9});
    pts.push_back({"softmax", 5 * n, 8 * n, 0, 100e9, 10e9});
  }
  for (auto& p : pts)
    p.seconds = t.predict(p);
  return pts;
}

// A private temporary file name (built with += : GCC 12 warns falsely about -Wrestrict on "literal" +
// string).
std::filesystem::path temp_file(const char* stem) {
  std::string name = stem;
  name += std::to_string(::getpid());
  name += ".json";
  return std::filesystem::temp_directory_path() / name;
}

} // namespace

TEST_CASE("the roofline fit recovers the parameters that generated its data") {
  const RooflineFit fit = fit_roofline(synthetic_points(), {"gemm", "softmax"}, {1e6, 32e6});
  CHECK(fit.efficiency.at("gemm") == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(fit.efficiency.at("softmax") == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(fit.memory_efficiency == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(fit.launch_overhead == doctest::Approx(2e-6).epsilon(1e-6));
  // Points between 1 MB and 32 MB moved at main-memory speed in the truth: their tier finds 10 GB/s x 0.8.
  REQUIRE(fit.memory_tiers.size() == 2);
  CHECK(fit.memory_tiers[0].bandwidth == doctest::Approx(40e9).epsilon(1e-6));
  CHECK(fit.memory_tiers[1].bandwidth == doctest::Approx(8e9).epsilon(1e-6));
  for (const auto& p : synthetic_points())
    CHECK(fit.predict(p) == doctest::Approx(p.seconds).epsilon(1e-6));
}

TEST_CASE("a tier with no measured point is not emitted") {
  std::vector<FitPoint> pts;
  for (double n : {1e7, 2e7, 4e7})
    pts.push_back({"elementwise", n, 12 * n, 12 * n / 5e9, 100e9, 10e9});
  const RooflineFit fit = fit_roofline(pts, {}, {1e6});
  CHECK(fit.memory_tiers.empty());
  CHECK(fit.memory_efficiency == doctest::Approx(0.5).epsilon(1e-6));
}

TEST_CASE("fitted efficiencies never exceed 1 and the launch overhead is never negative") {
  // Measured faster than the nominal peak allows (a wrong datasheet): the fit clamps at the bound.
  std::vector<FitPoint> pts;
  for (double n : {256.0, 512.0, 1024.0})
    pts.push_back({"gemm", 2 * n * n * n, 12 * n * n, 0.5 * 2 * n * n * n / 100e9, 100e9, 10e9});
  const RooflineFit fit = fit_roofline(pts, {"gemm"});
  CHECK(fit.efficiency.at("gemm") == doctest::Approx(1.0));
  CHECK(fit.launch_overhead >= 0.0);
}

TEST_CASE("a written calibration file makes the cost model predict what the fit predicts") {
  const RooflineFit fit = fit_roofline(synthetic_points(), {"gemm", "softmax"}, {1e6});
  const auto path = temp_file("hs-calibration-");
  write_file_atomically(
      path.string(),
      calibration_json(
          {{"cpu", {{}, {"cpu"}, {}}, "synthetic points", std::nullopt, fit, std::nullopt, "", 1}}, "test",
          "synthetic"),
      true);
  const Calibration cal = load_calibration(path.string());
  std::filesystem::remove(path);
  const Platform p = parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "one",
    "devices": [{"name": "c0", "kind": "cpu", "peak": {"fp32": 100e9}, "memory": {"bandwidth": 10e9, "capacity": "1GB"},
                 "power": {"idle": "0W", "busy": "1W"}}]})",
                                    "inline");
  GraphBuilder b("g");
  const auto pts = synthetic_points();
  for (std::size_t i = 0; i < pts.size(); ++i)
    b.op(std::to_string(i)).kind(pts[i].kind).flops(pts[i].flops).reads(pts[i].bytes);
  const Graph g = std::move(b).build();
  const CostModel cost(g, p, cal);
  for (std::size_t i = 0; i < pts.size(); ++i)
    CHECK(cost.op_time(static_cast<OpId>(i), 0) == doctest::Approx(fit.predict(pts[i])).epsilon(1e-9));
}

TEST_CASE("a calibration file with memory tiers out of order is refused with its place") {
  const auto path = temp_file("hs-badcal-");
  write_file_atomically(path.string(),
                        R"({"format": "heterosim-calibration", "version": 1, "devices": {"cpu": {
      "memory_tiers": [{"up_to": "32MB", "bandwidth": "40GBps"}, {"up_to": "1MB", "bandwidth": "90GBps"}]}}})",
                        true);
  try {
    load_calibration(path.string());
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("devices.cpu.memory_tiers[1].up_to") != std::string::npos);
  }
  std::filesystem::remove(path);
}
