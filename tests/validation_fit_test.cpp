// The calibration fit: it recovers known parameters from synthetic data, respects its bounds, and the
// calibration file it writes makes `heterosim run`'s cost model predict what the fit predicts.
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"
#include "validation/kernel_shapes.hpp"
#include "validation/roofline_fit.hpp"

#include <array>
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

// The calibration `fit` makes, through the file `validate` would write.
Calibration written_and_read(const RooflineFit& fit) {
  const auto path = temp_file("hs-calibration-");
  CalibrationOut entry;
  entry.name = "cpu";
  entry.applies_to.kinds = {"cpu"};
  entry.measured = "synthetic points";
  entry.fit = fit;
  write_file_atomically(path.string(), calibration_json({entry}, "test", "synthetic"), true);
  Calibration cal = load_calibration(path.string());
  std::filesystem::remove(path);
  return cal;
}

// What loading a version-1 calibration whose one entry, "cpu", has the JSON members `entry` says: its error
// and the file it was written to. A file that loads fails the test.
struct Refusal {
  std::string what, file;
};
Refusal refusal_of(const std::string& entry) {
  const auto path = temp_file("hs-badcal-");
  write_file_atomically(
      path.string(),
      std::string(R"({"format": "heterosim-calibration", "version": 1, "devices": {"cpu": {)")
          .append(entry)
          .append("}}}"),
      true);
  Refusal r{"", path.string()};
  try {
    load_calibration(path.string());
  } catch (const InputError& e) {
    r.what = e.what();
  }
  std::filesystem::remove(path);
  if (r.what.empty()) FAIL("expected an error");
  return r;
}

// The device of truth(): peak 100 GFLOP/s, 10 GB/s.
Platform one_cpu() {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "one",
    "devices": [{"name": "c0", "kind": "cpu", "peak": {"fp32": 100e9}, "memory": {"bandwidth": 10e9, "capacity": "1GB"},
                 "power": {"idle": "0W", "busy": "1W"}}]})",
                        "inline");
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
    CHECK(fit.predict(p) / p.seconds == doctest::Approx(1.0).epsilon(1e-6)); // ratios: these are microseconds
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
  const Calibration cal = written_and_read(fit);
  const Platform p = one_cpu();
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
  const Refusal r = refusal_of(
      R"("memory_tiers": [{"up_to": "32MB", "bandwidth": "40GBps"}, {"up_to": "1MB", "bandwidth": "90GBps"}])");
  CHECK(r.what.find("devices.cpu.memory_tiers[1].up_to") != std::string::npos);
}

TEST_CASE(
    "each kind's memory time factor is recovered beside the bandwidths, and the cost model applies it") {
  // Copies move their bytes 20 % faster than the tiers say, elementwise passes 25 % slower (the truth's
  // factors have geometric mean 1 over the points, as the fit normalises them).
  RooflineFit t = truth();
  t.memory_time_factor = {{"copy", 0.8}, {"elementwise", 1.25}};
  std::vector<FitPoint> pts;
  for (double n : {1e4, 1e5, 1e6, 1e7}) {
    pts.push_back({"copy", 0, 8 * n, 0, 100e9, 10e9});
    pts.push_back({"elementwise", n, 12 * n, 0, 100e9, 10e9});
  }
  for (auto& p : pts)
    p.seconds = t.predict(p);
  const RooflineFit fit = fit_roofline(pts, {}, {1e6, 32e6});
  REQUIRE(fit.memory_time_factor.size() == 2);
  CHECK(fit.memory_time_factor.at("copy") == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(fit.memory_time_factor.at("elementwise") == doctest::Approx(1.25).epsilon(1e-6));
  REQUIRE(fit.memory_tiers.size() == 2);
  CHECK(fit.memory_tiers[0].bandwidth == doctest::Approx(40e9).epsilon(1e-6));
  CHECK(fit.memory_efficiency == doctest::Approx(0.8).epsilon(1e-6));
  // Without the factors no one set of bandwidths fits both kinds.
  RooflineFit without = fit;
  without.memory_time_factor.clear();
  double worst = 0;
  for (const auto& p : pts) {
    CHECK(fit.predict(p) / p.seconds == doctest::Approx(1.0).epsilon(1e-6)); // ratios: these are microseconds
    worst = std::max(worst, std::abs(without.predict(p) / p.seconds - 1));
  }
  CHECK(worst > 0.15);
  // Through the file `validate` writes, the cost model costs each kind as the fit does.
  const Calibration cal = written_and_read(fit);
  GraphBuilder b("g");
  for (std::size_t i = 0; i < pts.size(); ++i)
    b.op(std::to_string(i)).kind(pts[i].kind).flops(pts[i].flops).reads(pts[i].bytes);
  const Graph g = std::move(b).build();
  const CostModel cost(g, one_cpu(), cal);
  for (std::size_t i = 0; i < pts.size(); ++i)
    CHECK(cost.op_time(static_cast<OpId>(i), 0) / pts[i].seconds == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE(
    "a memory time factor that is not a positive number, or of an unknown kind, is refused with its place") {
  for (const auto& [factors, place] : std::vector<std::pair<std::string, std::string>>{
           {R"({"copy": 0})", "devices.cpu.memory_time_factor.copy"},
           {R"({"copy": -1.5})", "devices.cpu.memory_time_factor.copy"},
           {R"({"no_such_kind": 1.1})", "no_such_kind"}}) {
    const Refusal r = refusal_of(std::string(R"("memory_time_factor": )").append(factors));
    CHECK_MESSAGE(r.what.find(place) != std::string::npos, r.what);
    CHECK(r.what.find(r.file) != std::string::npos);
  }
}

namespace {

// A CPU on which GEMMs and convolutions run as a BLAS runs them: packing at 5 GB/s, im2col at 2 GB/s,
// the packed GEMM at 70 % of 100 GFLOP/s (the truth the structured fit must recover).
RooflineFit structured_truth() {
  RooflineFit t = truth();
  t.efficiency = {{"gemm", 0.7}, {"softmax", 0.1}};
  t.gemm_structure = Calibration::Entry::GemmStructure{5e9, 2e9};
  return t;
}

std::vector<KernelShape> structured_shapes() {
  std::vector<KernelShape> shapes;
  for (double n : {64.0, 256.0, 1024.0})
    shapes.push_back(gemm_shape(n, n / 2, 2 * n));
  shapes.push_back(gemm_shape(512, 49, 4608)); // skinny: packing A dominates
  for (const auto& c :
       {std::array{56.0, 32.0, 64.0}, std::array{14.0, 256.0, 256.0}, std::array{7.0, 512.0, 512.0}})
    shapes.push_back(conv2d_shape(c[0], c[1], c[2]));
  for (double n : {1e4, 1e6, 1e7}) {
    shapes.push_back(vector_shape("elementwise", n));
    shapes.push_back(rows_shape("softmax", n / 1000, 1000));
  }
  return shapes;
}

std::vector<FitPoint> structured_points() {
  std::vector<FitPoint> pts;
  const RooflineFit t = structured_truth();
  for (const auto& s : structured_shapes()) {
    FitPoint p;
    p.kind = s.kind;
    p.flops = s.flops();
    p.bytes = s.bytes();
    p.peak_flops = 100e9;
    p.bandwidth = 10e9;
    p.pack_bytes = s.pack_bytes();
    p.im2col_bytes = s.im2col_bytes();
    p.seconds = t.predict(p);
    pts.push_back(p);
  }
  return pts;
}

} // namespace

TEST_CASE("the packed-GEMM fit recovers packing, im2col and GEMM figures, and the cost model agrees") {
  const auto pts = structured_points();
  const RooflineFit fit = fit_roofline(pts, {"gemm", "conv2d", "softmax"}, {1e6});
  REQUIRE(fit.gemm_structure);
  CHECK(fit.gemm_structure->pack_bandwidth == doctest::Approx(5e9).epsilon(1e-6));
  CHECK(fit.gemm_structure->im2col_bandwidth == doctest::Approx(2e9).epsilon(1e-6));
  CHECK(fit.efficiency.at("gemm") == doctest::Approx(0.7).epsilon(1e-6));
  CHECK_FALSE(fit.efficiency.count("conv2d")); // a convolution is its copies and a GEMM, no rate of its own

  // The skinny GEMM: 231 MFLOP at 70 GFLOP/s is 3.3 ms; packing its 9.4 MB of A and 0.9 MB of B at
  // 5 GB/s adds 2.06 ms (known answer by hand).
  const FitPoint& skinny = pts[3];
  const double by_flops = 2.0 * 512 * 49 * 4608 / 70e9, packing = 4.0 * (512 * 4608 + 4608 * 49) / 5e9;
  CHECK(fit.predict(skinny) == doctest::Approx(2e-6 + by_flops + packing).epsilon(1e-6));

  // What `heterosim run --calibration` computes for the same ops, built as the validation graphs build
  // them (a convolution carries its dimensions), is what the fit predicts.
  const Calibration cal = written_and_read(fit);
  const Platform p = one_cpu();
  GraphBuilder b("g");
  const auto shapes = structured_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const OpId op = b.op(std::to_string(i)).id();
    describe_op(b.mutable_op(op), shapes[i]);
  }
  const Graph g = std::move(b).build();
  const CostModel cost(g, p, cal);
  for (std::size_t i = 0; i < shapes.size(); ++i)
    CHECK(cost.op_time(static_cast<OpId>(i), 0) == doctest::Approx(fit.predict(pts[i])).epsilon(1e-9));
}

TEST_CASE("a GEMM loop structure with an unknown method or a bandwidth that is not positive is refused") {
  for (const auto& [structure, place] :
       {std::pair{R"({"method": "blocked", "pack_bandwidth": "5GBps", "im2col_bandwidth": "2GBps"})",
                  "gemm_structure.method"},
        std::pair{R"({"method": "packed", "pack_bandwidth": "0GBps", "im2col_bandwidth": "2GBps"})",
                  "gemm_structure.pack_bandwidth"}})
    CHECK(refusal_of(std::string(R"("gemm_structure": )").append(structure)).what.find(place) !=
          std::string::npos);
}
