#pragma once
// A GPU measurement set as `hs_measure_cuda` writes it, made in code: an A100 whose GEMMs took `slower`
// times what the wave model with parameters `wave` says, so that tests know the answer.
#include "sim/wave_model.hpp"
#include "validation/measurement_set.hpp"

#include <string>
#include <vector>

namespace hs::test {

using hs::validation::KernelPoint;
using hs::validation::MeasurementSet;

struct Gemm {
  const char* what;
  double batch, m, n, k;
};

// An A100 as hs_measure_cuda describes it: 108 SMs, 1410 MHz, and what NVML said (a 250 W limit, 1200 MHz
// held under SGEMM, driver 535.104.05). Its model string, unless `model` says otherwise, is none of the
// published boards the shipped trees were trained on (those they cost by name).
inline MeasurementSet a100_set(const std::vector<Gemm>& gemms, const WaveParams& shipped, double slower,
                               const std::string& model = "NVIDIA A100-SXM4-40GB") {
  MeasurementSet m;
  m.device = "gpu0";
  m.device_kind = "gpu";
  m.environment = {{"gpu_model", model},
                   {"compute_capability", "8.0"},
                   {"multiprocessors", "108"},
                   {"clock_khz", "1410000"},
                   {"cuda_runtime", "12020"},
                   {"nvidia_driver", "535.104.05"},
                   {"power_limit_w", "250"},
                   {"max_sm_clock_mhz", "1410"},
                   {"sm_clock_under_sgemm_mhz", "1200"},
                   {"date", "2026-12-05T00:00:00Z"}};
  m.peaks = {{"fp32_flops", 19.49e12}, {"memory_bandwidth", 1555e9}};
  WaveDevice d;
  d.peak_flops = 19.49e12;
  d.bandwidth = 1555e9;
  d.units = 108;
  d.boost_clock_mhz = 1410;
  d.sustained_clock_mhz = 1200;
  for (const Gemm& g : gemms) {
    KernelPoint p;
    p.kind = "gemm";
    p.label = std::string(g.what) + " m=" + std::to_string(static_cast<int>(g.m));
    p.shape = {{"m", g.m}, {"n", g.n}, {"k", g.k}};
    if (g.batch > 1) p.shape["batch"] = g.batch;
    p.flops = 2 * g.batch * g.m * g.n * g.k;
    p.bytes = 4 * g.batch * (g.m * g.k + g.k * g.n + g.m * g.n);
    p.repeats = 5;
    GemmShape shape;
    shape.m = g.m;
    shape.n = g.n;
    shape.k = g.k;
    shape.batch = g.batch;
    p.p50 = p.p95 = slower * gemm_wave_time(shape, d, shipped).seconds;
    m.points.push_back(p);
  }
  return m;
}

} // namespace hs::test
