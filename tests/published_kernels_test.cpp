// Published GEMM timings of newer GPUs (validation/published_kernels.hpp, published_wave.hpp): NeuSight's
// nn.Linear and bmm conventions read as GEMMs, bad rows named by file and line, the shipped model's error on
// a board known exactly, and the leave-one-chip-out fit that truly leaves the chip out.
#include "cli_support.hpp"
#include "sim/calibration.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/learned_model.hpp"
#include "validation/published_kernels.hpp"
#include "validation/published_wave.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <fstream>
#include <map>

using namespace hs;
using namespace hs::validation;

namespace {

const std::string kDir = std::string(HS_SOURCE_DIR) + "/validation";
const char* kSheets =
    "gpu,fp32_tflops,fp16_tensor_tflops,memory_gbps,model,compute_units,boost_clock_mhz,power_limit_w,"
    "architecture,memory_type,source,units_source\n"
    "A100-PCIe-40GB,19.5,312,1555,NVIDIA A100-PCIE-40GB,108,1410,250,Ampere,HBM2,datasheet,whitepaper\n"
    "L4,30.3,121,300,NVIDIA L4,58,2040,72,Ada,GDDR6,datasheet,datasheet\n";

std::string write_set(const std::string& name, const std::string& gemm_rows) {
  const auto dir = test::scratch_dir("published", name);
  std::ofstream(dir / "gpus.csv") << kSheets;
  std::ofstream(dir / "gemm.csv") << "op,gpu_model,b,m,n,k,latency_ms\n" << gemm_rows;
  return dir.string();
}

} // namespace

TEST_CASE("nn.Linear and bmm rows read as the GEMMs they run") {
  const auto points = load_published_gemms(write_set(
      "shapes", "linear,NVIDIA A100-PCIE-40GB,2,64,1024,4096,0.05\nbmm,NVIDIA L4,16,128,64,256,0.02\n"));
  REQUIRE(points.size() == 2);
  const DeepBenchPoint& linear = points[0];
  CHECK(linear.gpu == "A100-PCIe-40GB");
  CHECK(linear.label.rfind("linear ", 0) == 0);
  // A (2, 64, 1024) input through Linear(1024, 4096): 128 rows, reduction 1024, 4096 columns, weight
  // transposed; as the BLAS is called (cuBLAS "TN", as PyTorch calls it): m = 4096 output features of
  // n = 128 rows, the weight the transposed first operand.
  CHECK(linear.shape.m == 4096);
  CHECK(linear.shape.k == 1024);
  CHECK(linear.shape.n == 128);
  CHECK(linear.shape.batch == 1);
  CHECK(linear.shape.transposed_a);
  CHECK_FALSE(linear.shape.transposed_b);
  CHECK(linear.point.flops == 2.0 * 128 * 1024 * 4096);
  CHECK(linear.point.seconds == doctest::Approx(50e-6));
  CHECK(linear.device.units == 108);
  CHECK(linear.device.architecture == "Ampere");
  const DeepBenchPoint& bmm = points[1];
  // (16, 128, 64) by (16, 64, 256): 16 GEMMs of 128 x 256 with reduction 64; the BLAS's column-major
  // call is the transposed product, 256 x 128, neither operand transposed.
  CHECK(bmm.shape.batch == 16);
  CHECK(bmm.shape.m == 256);
  CHECK(bmm.shape.k == 64);
  CHECK(bmm.shape.n == 128);
  CHECK_FALSE(bmm.shape.transposed_a);
  CHECK_FALSE(bmm.shape.transposed_b);
  CHECK(bmm.point.flops == 2.0 * 16 * 128 * 64 * 256);
  CHECK(bmm.device.power_limit_watts == 72);
}

TEST_CASE("a bad published row is an error that names the file and line") {
  const auto fails_with = [](const std::string& rows, const std::string& what) {
    const std::string dir = write_set("bad", rows);
    try {
      load_published_gemms(dir);
      FAIL("no error for " << rows);
    } catch (const InputError& e) {
      const std::string text = e.what();
      CHECK(text.find("gemm.csv") != std::string::npos);
      CHECK(text.find(what) != std::string::npos);
    }
  };
  fails_with("linear,NVIDIA A100-PCIE-40GB,1,8,8,8,0.01\nlinear,Tesla K80,1,8,8,8,0.01\n", "line 3");
  fails_with("linear,NVIDIA L4,1,8,8,8,-0.01\n", "latency_ms");
  fails_with("linear,NVIDIA L4,1,8,0,8,0.01\n", "column n");
  fails_with("conv,NVIDIA L4,1,8,8,8,0.01\n", "linear or bmm");
  fails_with("linear,NVIDIA L4,1,8,8,8,nan\n", "line 2");
  fails_with("", "no GEMM rows");
}

TEST_CASE("the shipped model on a published board costs it by the trees trained on it, as `run` does") {
  if (!learned_models_built()) return;
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  REQUIRE(shipped.entries.front().wave);
  const WaveParams& wave = *shipped.entries.front().wave;
  const std::string shapes =
      write_set("probe", "linear,NVIDIA L4,1,256,1024,4096,1\nbmm,NVIDIA L4,8,512,64,512,1\n"
                         "linear,NVIDIA A100-PCIE-40GB,1,1024,4096,1024,1\n");
  const auto sheets = load_gpu_datasheets(shapes + "/gpus.csv");
  // The same rows with times 1.25x what the wave model gives on each board's sheet (b, m, n, k as NeuSight
  // writes them: n is the reduction).
  std::string slow;
  for (const auto& p : load_published_gemms(shapes)) {
    const bool linear = p.label.rfind("linear", 0) == 0;
    char row[200];
    std::snprintf(row, sizeof row, "%s,%s,%g,%g,%g,%g,%.17g\n", linear ? "linear" : "bmm",
                  sheets.at(p.gpu).model.c_str(), p.shape.batch, p.shape.m, p.shape.k, p.shape.n,
                  1.25 * gemm_wave_time(p.shape, p.device, wave).seconds * 1e3);
    slow += row;
  }
  const std::string slow_dir = write_set("slow", slow);
  const PublishedKernelCheck c = check_published_kernels(slow_dir, load_published_gemms(slow_dir), &shipped);
  REQUIRE(c.by_gpu.size() == 2);
  // The trees were trained on both boards by name, so they cost them, stack or not: the check's figures are
  // the shipped trees' errors on those points.
  const LearnedModel trees = LearnedModel::load(shipped.entries.front().learned_file);
  std::map<std::string, std::vector<double>> expected;
  for (const auto& p : load_published_gemms(slow_dir)) {
    WaveDevice d = p.device;
    d.model = sheets.at(p.gpu).model;
    expected[p.gpu].push_back(percent_error(trees.seconds(p.shape, d, false), p.point.seconds));
  }
  for (const auto& [gpu, check] : c.by_gpu) {
    const std::string board = gpu; // CAPTURE takes a variable, not a structured binding
    CAPTURE(board);
    CHECK(check.costed_by.find("learned model") != std::string::npos);
    // Within 2 %: the check's GEMM ops carry their dims but not NeuSight's operand layout.
    CHECK(check.gemm.mean_signed == doctest::Approx(summarize(expected.at(gpu)).mean_signed).epsilon(0.02));
    CHECK(check.gemm.mape == doctest::Approx(summarize(expected.at(gpu)).mape).epsilon(0.02));
    CHECK(std::abs(check.gemm.mean_signed + 20.0) > 1.0); // not the wave model's -20 %
  }
  CHECK(c.all.count == 3);
  CHECK(c.models.at("L4") == "NVIDIA L4");
}

TEST_CASE("leave one chip out: the held-out chip's own times take no part in its prediction") {
  // A few of DeepBench's fp32 GEMMs as the rest of the fit, and two published boards; the L4's times
  // tripled must leave its predictions unchanged, so each error moves exactly as the times do.
  const auto sheets = load_gpu_datasheets(kDir + "/gpu_datasheets.csv");
  auto deepbench = load_deepbench(kDir + "/measurements/deepbench", "gemm", sheets);
  std::vector<DeepBenchPoint> few;
  for (const auto& p : deepbench)
    if (p.precision == "fp32" && p.index < 12) few.push_back(p);
  const std::string rows =
      "linear,NVIDIA L4,1,512,1024,1024,0.2\nlinear,NVIDIA L4,1,2048,4096,1024,2.5\n"
      "bmm,NVIDIA L4,64,128,64,128,0.08\nlinear,NVIDIA A100-PCIE-40GB,1,512,1024,1024,0.13\n"
      "linear,NVIDIA A100-PCIE-40GB,1,2048,4096,4096,4.6\n";
  const auto published = load_published_gemms(write_set("logo", rows));
  auto tripled = published;
  for (auto& p : tripled)
    if (p.gpu == "L4") p.point.seconds *= 3;
  const auto a = published_wave_leave_one_chip_out(few, published);
  const auto b = published_wave_leave_one_chip_out(few, tripled);
  // mean(pred / (3 t) - 1) = (mean(pred / t - 1) + 1) / 3 - 1, in percent.
  CHECK(b.by_gpu.at("L4").mean_signed == doctest::Approx((a.by_gpu.at("L4").mean_signed + 100) / 3 - 100));
  // The A100's fit did see the tripled L4, so its figure may move; both boards are reported.
  CHECK(a.by_gpu.size() == 2);
  CHECK(a.all.count == 5);
}

TEST_CASE("the fit's sample: every DeepBench fp32 GEMM and at most 200 points of each published GPU") {
  const auto sheets = load_gpu_datasheets(kDir + "/gpu_datasheets.csv");
  const auto deepbench = load_deepbench(kDir + "/measurements/deepbench", "gemm", sheets);
  const auto published = load_published_gemms(kDir + "/measurements/neusight");
  CHECK(published.size() == 21715);
  std::map<std::string, int> per_gpu;
  std::size_t from_deepbench = 0, deepbench_fp32 = 0;
  for (const auto& p : deepbench)
    deepbench_fp32 += p.precision == "fp32";
  for (const DeepBenchPoint* p : wave_fit_sample(deepbench, published)) {
    if (sheets.count(p->gpu))
      ++from_deepbench;
    else
      ++per_gpu[p->gpu];
  }
  CHECK(from_deepbench == deepbench_fp32);
  CHECK(per_gpu.size() == 8);
  for (const auto& [gpu, n] : per_gpu) {
    const std::string board = gpu;
    CAPTURE(board);
    CHECK(n <= 200);
    CHECK(n >= 150);
  }
}
