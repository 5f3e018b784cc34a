// The shipped GPU model (models/calibration-deepbench-gpu.json) on GPUs newer than DeepBench's, against the
// kernel rates issue 10 measured: BERT-large's fp32 GEMMs reach 33-39 TFLOP/s on an H100 SXM and 5.5-8 on a
// 72 W L4. Not a fit (nothing was tuned on these figures), a check that the model stays within 15 % of them;
// the trees alone, extrapolated three and two architectures, gave 20.6 and 4.3 TFLOP/s at batch 1.
#include "sim/cost_model.hpp"
#include "sim/learned_model.hpp"
#include "workloads/workload_registry.hpp"

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

// FLOPs over seconds of the cost model's GEMMs on one of its devices.
double gemm_tflops(const CostModel& cost, DeviceId device) {
  const Graph& g = cost.graph();
  double flops = 0, seconds = 0;
  for (OpId o = 0; o < g.op_count(); ++o)
    if (g.ops[static_cast<std::size_t>(o)].kind == "gemm") {
      flops += g.ops[static_cast<std::size_t>(o)].flops;
      seconds += cost.op_time(o, device);
    }
  return flops / seconds / 1e12;
}

// The same for a workload on a platform's device, costed by the shipped GPU model.
double gemm_tflops(const std::string& workload, const Platform& p, DeviceId device = 0) {
  const Graph g = load_workload(workload);
  return gemm_tflops(CostModel(g, p, load_calibration("deepbench-gpu", p)), device);
}

} // namespace

TEST_CASE(
    "the shipped GPU model puts BERT-large's GEMMs on an H100 and an L4 near issue 10's measured rates") {
  if (!learned_models_built()) return; // the shipped calibration names the learned model
  for (const char* workload : {"bert-large:batch=1", "bert-large:batch=8"}) {
    CAPTURE(workload);
    const double h100 = gemm_tflops(workload, one_gpu(true)), l4 = gemm_tflops(workload, one_gpu(false));
    CHECK(h100 >= 33 * 0.85);
    CHECK(h100 <= 39 * 1.15);
    CHECK(l4 >= 5.5 * 0.85);
    CHECK(l4 <= 8 * 1.15);
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
  const Platform h100 = load_platform("h100-sxm-server"), l4 = load_platform("l4-server");
  for (const char* workload : {"bert-large:batch=1", "bert-large:batch=8"}) {
    CAPTURE(workload);
    const double h = gemm_tflops(workload, h100, *h100.find_device("gpu0"));
    const double l = gemm_tflops(workload, l4, *l4.find_device("gpu0"));
    CHECK(h >= 33 * 0.85);
    CHECK(h <= 39 * 1.15);
    CHECK(l >= 5.5 * 0.85);
    CHECK(l <= 8 * 1.15);
  }
}
