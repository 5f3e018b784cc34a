// Published memory-bound kernels (validation/published_memory_bound.hpp): NeuSight's ops read with their
// bytes, bad rows named by file and line, the fit recovering known shares, each GPU truly left out of the
// fit that scores it, and the calibration it writes costing ops in `run` as validate scored them.
#include "cli_support.hpp"
#include "sim/calibration.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "validation/deepbench.hpp"
#include "validation/published_memory_bound.hpp"
#include "validation/roofline_fit.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <tuple>

using namespace hs;
using namespace hs::validation;

namespace {

const std::string kCommitted = std::string(HS_SOURCE_DIR) + "/validation/measurements/neusight";
const char* kSheets =
    "gpu,fp32_tflops,fp16_tensor_tflops,memory_gbps,model,compute_units,boost_clock_mhz,power_limit_w,"
    "architecture,memory_type,source,units_source\n"
    "A100-PCIe-40GB,19.5,312,1555,NVIDIA A100-PCIE-40GB,108,1410,250,Ampere,HBM2,datasheet,whitepaper\n"
    "L4,30.3,121,300,NVIDIA L4,58,2040,72,Ada,GDDR6,datasheet,datasheet\n"
    "T4-16GB,8.1,65,320,Tesla T4,40,1590,70,Turing,GDDR6,datasheet,datasheet\n";

std::string write_set(const std::string& name, const std::string& rows) {
  const auto dir = test::scratch_dir("published-memory", name);
  std::ofstream(dir / "gpus.csv") << kSheets;
  std::ofstream(dir / "memory_bound.csv") << "op,gpu_model,b,h,latency_ms\n" << rows;
  return dir.string();
}

// A row whose time is the 5 us launch plus its bytes at `share` of the GPU's bandwidth.
std::string row(const std::string& op, const std::string& model, double bandwidth, double b, double h,
                double bytes_per_element, double share) {
  const double ms = (5e-6 + bytes_per_element * b * h / (share * bandwidth)) * 1e3;
  char line[160];
  std::snprintf(line, sizeof line, "%s,%s,%.0f,%.0f,%.12g\n", op.c_str(), model.c_str(), b, h, ms);
  return line;
}

// Elementwise at 0.8 of each GPU's bandwidth, softmax 1.25 times slower, on three GPUs.
std::string known_rows() {
  std::string rows;
  for (const auto& [model, bw] : {std::pair{"NVIDIA A100-PCIE-40GB", 1555e9}, std::pair{"NVIDIA L4", 300e9},
                                  std::pair{"Tesla T4", 320e9}})
    for (double b : {8192.0, 65536.0})
      rows += row("add", model, bw, b, 1024, 12, 0.8) + row("relu", model, bw, b, 2048, 8, 0.8) +
              row("softmax", model, bw, b, 1024, 8, 0.8 / 1.25);
  return rows;
}

// An entry for every GPU that says how memory-bound ops run and nothing else.
CalibrationOut memory_entry() {
  CalibrationOut c;
  c.name = "gpu-memory";
  c.applies_to.kinds = {"gpu"};
  c.measured = "test";
  c.roofline = false;
  return c;
}

DeviceId first_gpu(const Platform& p) {
  DeviceId gpu = 0;
  while (p.devices.at(static_cast<std::size_t>(gpu)).kind != "gpu")
    ++gpu;
  return gpu;
}

} // namespace

TEST_CASE("published memory-bound rows read with the bytes their op moves") {
  const auto points = load_published_memory_bound(write_set(
      "bytes", "add,NVIDIA L4,8192,1024,0.5\naddu,NVIDIA L4,8192,1024,0.3\nln,Tesla T4,4096,768,0.2\n"));
  REQUIRE(points.size() == 3);
  CHECK(points[0].gpu == "L4");
  CHECK(points[0].kind == "elementwise");
  CHECK(points[0].bytes == 12.0 * 8192 * 1024); // two inputs read, one output written, fp32
  CHECK(points[1].bytes == 8.0 * 8192 * 1024);  // a tensor and a scalar
  CHECK(points[2].kind == "layernorm");
  CHECK(points[2].seconds == doctest::Approx(0.2e-3));
}

TEST_CASE("a folder without memory_bound.csv has no memory-bound timings") {
  const auto dir = test::scratch_dir("published-memory", "absent");
  std::ofstream(dir / "gpus.csv") << kSheets;
  CHECK(load_published_memory_bound(dir.string()).empty());
}

TEST_CASE("bad memory-bound rows are errors naming the file, line and column") {
  const auto message = [](const std::string& rows) {
    try {
      load_published_memory_bound(write_set("bad", rows));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string unknown_op = message("add,NVIDIA L4,8192,1024,0.5\nsoftplus,NVIDIA L4,8192,1024,0.5\n");
  CHECK(unknown_op.find("memory_bound.csv") != std::string::npos);
  CHECK(unknown_op.find("line 3") != std::string::npos);
  CHECK(unknown_op.find("softplus") != std::string::npos);
  const std::string unknown_gpu = message("add,NVIDIA B200,8192,1024,0.5\n");
  CHECK(unknown_gpu.find("NVIDIA B200") != std::string::npos);
  const std::string zero = message("add,NVIDIA L4,0,1024,0.5\n");
  CHECK(zero.find("column b") != std::string::npos);
  CHECK(message("add,NVIDIA L4,8192,1024,nan\n").find("latency_ms") != std::string::npos);
}

TEST_CASE("the fit recovers known shares and scores them exactly, each GPU left out") {
  const std::string dir = write_set("known", known_rows());
  const auto sheets = load_gpu_datasheets(dir + "/gpus.csv");
  const auto m = evaluate_published_memory_bound(load_published_memory_bound(dir), sheets);
  CHECK(m.fit.memory_efficiency == doctest::Approx(0.8));
  CHECK(m.fit.memory_time_factor.at("softmax") == doctest::Approx(1.25));
  REQUIRE(m.held_out_by_kind.count("softmax"));
  // The cost model adds the same launch and divides by the same shares: the held-out error is nil.
  CHECK(m.held_out_by_kind.at("elementwise").mape < 1e-6);
  CHECK(m.held_out_by_kind.at("softmax").mape < 1e-6);
  // The presets' assumed 0.85 is too fast on every kernel here.
  CHECK(m.assumed_by_kind.at("softmax").mean_signed < -20);
}

TEST_CASE("a GPU scored by the memory-bound fit is left out of it") {
  // The L4's timings are doubled: the fit that scores it must not see them, the fits that score the
  // others must.
  std::string rows;
  for (const auto& [model, bw, share] :
       {std::tuple{"NVIDIA A100-PCIE-40GB", 1555e9, 0.8}, std::tuple{"NVIDIA L4", 300e9, 0.4},
        std::tuple{"Tesla T4", 320e9, 0.8}})
    for (double b : {8192.0, 16384.0, 65536.0})
      rows += row("relu", model, bw, b, 1024, 8, share);
  const std::string dir = write_set("left-out", rows);
  const auto m = evaluate_published_memory_bound(load_published_memory_bound(dir),
                                                 load_gpu_datasheets(dir + "/gpus.csv"));
  CHECK(m.fit_without.at("L4").memory_efficiency == doctest::Approx(0.8));
  CHECK(m.held_out_by_gpu.at("L4").at("elementwise").mean_signed < -40); // predicted at twice its pace
  CHECK(m.held_out_by_gpu.at("A100-PCIe-40GB").at("elementwise").mape < 1e-6);
}

TEST_CASE("the memory-bound figures a calibration carries cost run's ops as validate scored them") {
  CalibrationOut c = memory_entry();
  c.memory_efficiency = 0.8;
  c.memory_time_factor = {{"softmax", 1.25}, {"layernorm", 1.5}};
  c.memory_held_out_mape_percent = {{"softmax", 12.5}};
  const auto dir = test::scratch_dir("published-memory", "calibration");
  std::ofstream(dir / "cal.json") << calibration_json({c}, "test", "test");
  const Platform p = load_platform(std::string(HS_SOURCE_DIR) + "/platforms/l4-server.json");
  const Calibration cal = load_calibration((dir / "cal.json").string(), p);
  GraphBuilder g("memory-bound");
  g.op("softmax").kind("softmax").precision("fp32").flops(5e6).reads(4e6).writes(4e6);
  g.op("gelu").kind("gelu").precision("fp32").flops(8e6).reads(4e6).writes(4e6);
  const Graph graph = g.build();
  const CostModel cost(graph, p, cal);
  const DeviceId gpu = first_gpu(p);
  const Device& d = p.devices[static_cast<std::size_t>(gpu)];
  CHECK(cost.op_time(0, gpu) == doctest::Approx(d.launch_overhead + 8e6 * 1.25 / (0.8 * d.memory_bandwidth)));
  CHECK(cost.op_time(1, gpu) == doctest::Approx(d.launch_overhead + 8e6 / (0.8 * d.memory_bandwidth)));
  CHECK(calibration_usage_text(cal, p).find("memory-bound kernels held out: softmax 12.5 %") !=
        std::string::npos);
}

TEST_CASE("on the committed published timings the fitted shares beat the assumed ones, held out") {
  const auto m = evaluate_published_memory_bound(load_published_memory_bound(kCommitted),
                                                 load_gpu_datasheets(kCommitted + "/gpus.csv"));
  CHECK(m.held_out_by_gpu.size() == 7);
  for (const char* kind : {"softmax", "layernorm"}) {
    CAPTURE(kind);
    CHECK(m.held_out_by_kind.at(kind).mape < m.assumed_by_kind.at(kind).mape);
    CHECK(m.fit.memory_time_factor.at(kind) > 1.0);
  }
  CHECK(m.fit.memory_efficiency > 0.6);
  CHECK(m.fit.memory_efficiency < 0.9);
  // HBM streams a larger share of its datasheet bandwidth than GDDR, and the family split pays off held out.
  CHECK(m.fit.by_memory_type.at("HBM").memory_efficiency > m.fit.by_memory_type.at("GDDR").memory_efficiency);
  CHECK(m.held_out_by_kind.at("elementwise").mape < m.assumed_by_kind.at("elementwise").mape);
}

TEST_CASE("a device takes the memory figures of its memory family, and a family must say its share") {
  CalibrationOut c = memory_entry();
  c.memory_efficiency = 0.5;
  c.by_memory_type["HBM"] = {0.9, {{"softmax", 2.0}}};
  const auto dir = test::scratch_dir("published-memory", "families");
  std::ofstream(dir / "cal.json") << calibration_json({c}, "test", "test");
  GraphBuilder g("memory-bound");
  g.op("softmax").kind("softmax").precision("fp32").flops(5e6).reads(4e6).writes(4e6);
  const Graph graph = g.build();
  for (const char* preset : {"a100-pcie-server", "l4-server"}) {
    CAPTURE(preset);
    const Platform p = load_platform(preset);
    const Calibration cal = load_calibration((dir / "cal.json").string(), p);
    const DeviceId gpu = first_gpu(p);
    const Device& d = p.devices[static_cast<std::size_t>(gpu)];
    const bool hbm = d.units.memory_type.rfind("HBM", 0) == 0; // the A100's HBM2, not the L4's GDDR6
    CHECK(hbm == (std::string(preset) == "a100-pcie-server"));
    const double seconds_per_byte = hbm ? 2.0 / (0.9 * d.memory_bandwidth) : 1.0 / (0.5 * d.memory_bandwidth);
    CHECK(CostModel(graph, p, cal).op_time(0, gpu) ==
          doctest::Approx(d.launch_overhead + 8e6 * seconds_per_byte));
  }
  std::ofstream(dir / "bad.json")
      << R"({"format": "heterosim-calibration", "version": 2, "source": "test", "entries": [{"name": "g",
            "applies_to": {"kinds": ["gpu"]}, "measured": "test",
            "by_memory_type": {"HBM": {"memory_time_factor": {"softmax": 2}}}}]})";
  try {
    load_calibration((dir / "bad.json").string());
    FAIL("a memory family without its share loaded");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bad.json") != std::string::npos);
    CHECK(std::string(e.what()).find("HBM") != std::string::npos);
    CHECK(std::string(e.what()).find("memory_efficiency") != std::string::npos);
  }
}
