// The wave model against DeepBench, beside the roofline: leave one GPU out (the left-out GPU's points
// take no part in the fit) and per GPU on the same two-thirds split.
#include "validation/deepbench.hpp"
#include "validation/wave_fit.hpp"

#include <algorithm>
#include <set>

namespace hs::validation {

namespace {

std::vector<double> errors_of(const std::vector<WavePoint>& points, const WaveParams& params) {
  std::vector<double> errors;
  for (const auto& p : points)
    errors.push_back(percent_error(gemm_wave_time(p.shape, p.device, params).seconds, p.seconds));
  return errors;
}

// `p` with the launch overhead the GPU's fastest problem shows: its measured time less what the model
// predicts for it without launch. One point, what timing an empty kernel on the target would give.
WaveParams with_launch_of(const std::vector<WavePoint>& own, WaveParams p) {
  const auto fastest = std::min_element(
      own.begin(), own.end(), [](const WavePoint& a, const WavePoint& b) { return a.seconds < b.seconds; });
  if (fastest == own.end()) return p;
  WaveParams no_launch = p;
  no_launch.launch_seconds = 0;
  p.launch_seconds =
      std::max(0.0, fastest->seconds - gemm_wave_time(fastest->shape, fastest->device, no_launch).seconds);
  return p;
}

std::string architecture_of(const std::vector<DeepBenchPoint>& points, const std::string& gpu) {
  for (const auto& p : points)
    if (p.gpu == gpu) return p.device.architecture;
  return "";
}

} // namespace

WavePoint wave_point(const DeepBenchPoint& p) {
  return {p.shape, p.device, p.point.seconds};
}

void evaluate_deepbench_wave(const std::vector<DeepBenchPoint>& points, DeepBenchResult& res) {
  std::set<std::string> gpus;
  for (const auto& p : points)
    if (p.precision == "fp32") gpus.insert(p.gpu);
  std::vector<double> all_logo, all_shared, all_launch, all_calibrated;
  for (const auto& gpu : gpus) {
    std::vector<WavePoint> others, kin, own, own_train, own_test;
    const std::string arch = architecture_of(points, gpu);
    for (const auto& p : points) {
      if (p.precision != "fp32") continue;
      if (p.gpu != gpu) {
        others.push_back(wave_point(p));
        if (!arch.empty() && p.device.architecture == arch) kin.push_back(wave_point(p));
        continue;
      }
      own.push_back(wave_point(p));
      (held_out(p.index) ? own_test : own_train).push_back(wave_point(p));
    }
    const WaveParams shared = fit_wave(others);
    res.wave_fit_shared_without[gpu] = shared;
    const std::vector<double> shared_only = errors_of(own, shared);
    res.wave_leave_one_gpu_out_shared[gpu] = summarize(shared_only);
    all_shared.insert(all_shared.end(), shared_only.begin(), shared_only.end());
    // Refitted on the other GPUs of the left-out GPU's architecture, where there are any.
    const WaveParams fitted = kin.empty() ? shared : refit_wave(kin, shared);
    res.wave_fit_without[gpu] = fitted;
    const std::vector<double> logo = errors_of(own, fitted);
    res.wave_leave_one_gpu_out[gpu] = summarize(logo);
    all_logo.insert(all_logo.end(), logo.begin(), logo.end());
    const std::vector<double> launch = errors_of(own, with_launch_of(own, fitted));
    res.wave_leave_one_gpu_out_own_launch[gpu] = summarize(launch);
    all_launch.insert(all_launch.end(), launch.begin(), launch.end());
    res.wave_fit_own[gpu] = fit_wave(own_train);
    const std::vector<double> calibrated = errors_of(own_test, res.wave_fit_own[gpu]);
    res.wave_calibrated_by_gpu[gpu] = summarize(calibrated);
    all_calibrated.insert(all_calibrated.end(), calibrated.begin(), calibrated.end());
  }
  res.wave_leave_one_gpu_out_all = summarize(all_logo);
  res.wave_leave_one_gpu_out_shared_all = summarize(all_shared);
  res.wave_leave_one_gpu_out_own_launch_all = summarize(all_launch);
  res.wave_calibrated = summarize(all_calibrated);
}

} // namespace hs::validation
