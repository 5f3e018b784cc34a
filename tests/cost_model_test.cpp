#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

using namespace hs;

namespace {
Platform roofline_platform() {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "roof",
    "devices": [{"name": "g", "kind": "gpu", "peak": {"fp32": "10Tf", "fp16": "100Tf"},
                 "memory": {"bandwidth": "1TBps", "capacity": "1GB"}, "launch_overhead": "5us",
                 "efficiency": {"default": 0.5, "gemm": 0.8}, "memory_efficiency": 0.5,
                 "supported_ops": ["gemm", "elementwise"], "power": {"idle": 1, "busy": 2}},
                {"name": "c", "kind": "cpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "100GBps", "capacity": "1GB"},
                 "power": {"idle": 1, "busy": 2}}],
    "links": [{"name": "l", "bandwidth": "10GBps", "latency": "2us"}],
    "routes": [{"from": "g", "to": "c", "links": ["l"]}]})",
                        "roof.json");
}
} // namespace

TEST_CASE("roofline: launch overhead + max(compute, memory), per precision and op kind") {
  const Platform p = roofline_platform();
  GraphBuilder b("ops");
  auto gemm = b.op("gemm").kind("gemm").flops(8e12);                                // compute-bound
  auto copy = b.op("copy").kind("elementwise").flops(1e6).reads(4e11).writes(1e11); // memory-bound
  auto half = b.op("half").kind("gemm").precision("fp16").flops(8e12);
  auto conv = b.op("conv").kind("conv2d").flops(1e12);
  gemm.feeds(copy, 1e9);
  (void)half;
  (void)conv;
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  CHECK(cost.op_time(0, 0) == doctest::Approx(5e-6 + 8e12 / (10e12 * 0.8)));
  CHECK(cost.op_time(1, 0) == doctest::Approx(5e-6 + 5e11 / (1e12 * 0.5)));
  CHECK(cost.op_time(2, 0) == doctest::Approx(5e-6 + 8e12 / (100e12 * 0.8)));
  CHECK_FALSE(cost.feasible(2, 1)); // the CPU has no fp16 throughput here
  CHECK_FALSE(cost.feasible(3, 0)); // the GPU lists no conv2d support
  CHECK(cost.infeasibility_reason(3, 0).find("does not run op kind 'conv2d'") != std::string::npos);
  CHECK(cost.op_time(3, 1) == doctest::Approx(1.0)); // no efficiency given: peak
  CHECK(cost.transfer_time(0, 0, 1) == doctest::Approx(2e-6 + 1e9 / 10e9));
  CHECK(cost.transfer_time(0, 0, 0) == 0.0);
}

TEST_CASE("a calibration file overrides efficiencies and launch overhead, by device name or kind") {
  const Platform p = roofline_platform();
  GraphBuilder b("ops");
  b.op("gemm").kind("gemm").flops(8e12);
  const Graph g = std::move(b).build();
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = (dir / "heterosim-calibration-test.json").string();
  std::ofstream(path) << R"({"format": "heterosim-calibration", "version": 1, "source": "test",
    "devices": {"gpu": {"efficiency": {"gemm": 0.4}, "launch_overhead": "1ms"}}})";
  const CostModel calibrated(g, p, load_calibration(path));
  CHECK(calibrated.op_time(0, 0) == doctest::Approx(1e-3 + 8e12 / (10e12 * 0.4)));
  std::ofstream(path)
      << R"({"format": "heterosim-calibration", "version": 1, "devices": {"gpu": {"efficiency": {"gemm": 1.7}}}})";
  CHECK_THROWS_WITH_AS(load_calibration(path),
                       doctest::Contains("devices.gpu.efficiency.gemm: must be in (0, 1]"), InputError);
  std::filesystem::remove(path);
}
