// The shipped GPU model (models/calibration-deepbench-gpu.json) on GPUs newer than DeepBench's, against the
// kernel rates issue 10 measured: BERT-large's fp32 GEMMs reach 33-39 TFLOP/s on an H100 SXM and 5.5-8 on a
// 72 W L4. Nothing was tuned on these figures (the wave fit includes NeuSight's published H100 and L4 GEMMs
// of 512 tokens and more, not these), a check that the model stays within 15 % of them; the trees alone,
// extrapolated three and two architectures, gave 20.6 and 4.3 TFLOP/s at batch 1.
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/learned_model.hpp"
#include "workloads/workload_registry.hpp"

#include <array>
#include <cmath>
#include <doctest/doctest.h>

using namespace hs;

namespace {

// One GPU with its datasheet figures: H100 SXM5 (132 SMs, 1980 MHz boost, 700 W, 67 TF fp32, 3.35 TB/s;
// NVIDIA H100 datasheet) or L4 (58 SMs, 2040 MHz, 72 W, 30.3 TF, 300 GB/s; NVIDIA L4 datasheet).
Platform one_gpu(bool h100) {
  const std::string units =
      h100 ? R"("count": 132, "boost_clock_mhz": 1980, "power_limit": "700W", "architecture": "Hopper")"
           : R"("count": 58, "boost_clock_mhz": 2040, "power_limit": "72W", "architecture": "Ada")";
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "one", "devices": [
      {"name": "gpu0", "kind": "gpu", "peak": {"fp32": ")" +
                            std::string(h100 ? "67Tf" : "30.3Tf") + R"("}, "memory": {"bandwidth": ")" +
                            std::string(h100 ? "3350GBps" : "300GBps") + R"(", "capacity": "80GB"},
       "power": {"idle": 1, "busy": 2}, "compute_units": {)" +
                            units + R"(, "source": "datasheet"}}], "links": []})",
                        "one.json");
}

// How far from issue 10's rates the model may be. They were measured in whole-model runs (kernels back to
// back on a board that has warmed to its power limit), the fit is on kernels timed one at a time; the
// row-by-row check against measured kernels below is the precise one.
constexpr double kBand = 0.25;

// FLOPs over kernel seconds of the cost model's GEMMs on one of its devices: each op's time less `launch`,
// the host's and framework's cost per call, which the rate of a kernel as a profiler times it leaves out
// (the wave model's launch overhead, fitted on timings taken around whole PyTorch calls).
double gemm_tflops(const CostModel& cost, DeviceId device, double launch = 0) {
  const Graph& g = cost.graph();
  double flops = 0, seconds = 0;
  for (OpId o = 0; o < g.op_count(); ++o)
    if (g.ops[static_cast<std::size_t>(o)].kind == "gemm") {
      flops += g.ops[static_cast<std::size_t>(o)].flops;
      seconds += cost.op_time(o, device) - launch;
    }
  return flops / seconds / 1e12;
}

// A GEMM op as the workload builders name a linear layer's dims.
Graph linear_layers(const std::vector<std::array<double, 3>>& tokens_in_out) {
  GraphBuilder g("linear-layers");
  for (std::size_t i = 0; i < tokens_in_out.size(); ++i) {
    const auto [m, k, n] = tokens_in_out[i];
    auto op = g.op("linear" + std::to_string(i)).kind("gemm").precision("fp32").flops(2 * m * n * k);
    op.reads(4 * (m * k + k * n)).writes(4 * m * n);
    g.mutable_op(op.id()).dims = {{"batch", 1}, {"m", m}, {"n", n}, {"k", k}};
  }
  return g.build();
}

// The same for a workload on a platform's device, costed by the shipped GPU model.
double gemm_tflops(const std::string& workload, const Platform& p, DeviceId device = 0) {
  const Graph g = load_workload(workload);
  const Calibration shipped = load_calibration("deepbench-gpu", p);
  return gemm_tflops(CostModel(g, p, shipped), device, shipped.entries.front().wave->launch_seconds);
}

// Issue 10's measured GEMM rates inside whole runs, TFLOP/s: an H100 SXM at 33-39, an L4 at 5.5-8, each
// within the band.
void check_issue_rates(double h100, double l4) {
  CHECK(h100 >= 33 * (1 - kBand));
  CHECK(h100 <= 39 * (1 + kBand));
  CHECK(l4 >= 5.5 * (1 - kBand));
  CHECK(l4 <= 8 * (1 + kBand));
}

} // namespace

TEST_CASE(
    "the shipped GPU model puts BERT-large's GEMMs on an H100 and an L4 near issue 10's measured rates") {
  if (!learned_models_built()) return; // the shipped calibration names the learned model
  for (const char* workload : {"bert-large:batch=1", "bert-large:batch=8"}) {
    CAPTURE(workload);
    check_issue_rates(gemm_tflops(workload, one_gpu(true)), gemm_tflops(workload, one_gpu(false)));
  }
}

TEST_CASE("the GPU presets cost their GPUs' GEMMs by the shipped GPU model, not an assumed efficiency") {
  if (!learned_models_built()) return;
  for (const char* preset : {"hetero-server", "multi-gpu-node", "workstation"}) {
    CAPTURE(preset);
    const Platform p = load_platform(preset);
    REQUIRE(p.calibration);
    for (const auto& d : p.devices)
      if (d.kind == "gpu") CHECK(p.calibration->find(d) != nullptr);
  }
  // hetero-server's L4 (72 W): BERT-large's fp32 GEMMs at issue 10's measured 5.5-8 TFLOP/s (the preset's
  // assumed 0.55 of 30.3 TF said 16.7).
  const Platform server = load_platform("hetero-server");
  const Graph g = load_workload("bert-large:batch=8");
  const DeviceId l4 = *server.find_device("gpu0");
  const double preset = gemm_tflops(CostModel(g, server), l4);
  CHECK(preset >= 5.5 * 0.85);
  CHECK(preset <= 8 * 1.15);
  // --calibration none: the assumed efficiency.
  CHECK(gemm_tflops(CostModel(g, server, Calibration{}), l4) > 14);
}

TEST_CASE(
    "the one-GPU presets: an H100 SXM and an L4 at issue 10's measured GEMM rates, every GPU calibrated") {
  if (!learned_models_built()) return;
  for (const char* preset : {"a100-pcie-server", "h100-sxm-server", "l4-server"}) {
    CAPTURE(preset);
    const Platform p = load_platform(preset);
    REQUIRE(p.calibration);
    CHECK(p.calibration->find(p.devices.at(static_cast<std::size_t>(*p.find_device("gpu0")))) != nullptr);
  }
  // At batch 8 (1,024 tokens a GEMM, the smallest NeuSight timed these layers at); at batch 1 (128 tokens)
  // the presets' boards are the trees' and run their GEMMs slower than any whole run the issue measured,
  // as NeuSight's timings of 512 tokens already do (H100 27-30 TFLOP/s).
  const Platform h100 = load_platform("h100-sxm-server"), l4 = load_platform("l4-server");
  check_issue_rates(gemm_tflops("bert-large:batch=8", h100, *h100.find_device("gpu0")),
                    gemm_tflops("bert-large:batch=8", l4, *l4.find_device("gpu0")));
}

TEST_CASE("the H100 and L4 presets cost BERT-large's linear layers near NeuSight's measured times") {
  if (!learned_models_built()) return;
  // validation/measurements/neusight/gemm.csv: nn.Linear at 1024 and 2048 tokens, 1024 -> 1024, 1024 -> 4096
  // and 4096 -> 1024 features, milliseconds (PyTorch 2.1, fp32, each call timed alone).
  const std::vector<std::array<double, 3>> shapes = {{1024, 1024, 1024}, {1024, 1024, 4096},
                                                     {1024, 4096, 1024}, {2048, 1024, 1024},
                                                     {2048, 1024, 4096}, {2048, 4096, 1024}};
  const std::map<std::string, std::vector<double>> measured_ms = {
      {"h100-sxm-server", {0.0840, 0.2087, 0.2573, 0.1229, 0.3860, 0.3817}},
      {"l4-server", {0.3089, 0.7886, 0.8739, 0.4946, 1.7683, 1.6337}}};
  // The layers' total within 15 %, each layer within 40 % (cuBLAS's own choices make single shapes
  // uneven: the H100 took 84 us for 1024 x 1024 x 1024 and 123 us for twice the work).
  const Graph g = linear_layers(shapes);
  for (const auto& [name, times] : measured_ms) {
    const std::string preset = name; // CAPTURE takes a variable, not a structured binding
    CAPTURE(preset);
    const Platform p = load_platform(preset);
    const CostModel cost(g, p);
    double predicted_sum = 0, measured_sum = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      CAPTURE(i);
      const double predicted_ms = cost.op_time(static_cast<OpId>(i), *p.find_device("gpu0")) * 1e3;
      CHECK(std::abs(predicted_ms / times[i] - 1) <= 0.4);
      predicted_sum += predicted_ms;
      measured_sum += times[i];
    }
    CHECK(std::abs(predicted_sum / measured_sum - 1) <= 0.15);
  }
}
