#include "validation/published_wave.hpp"

#include <set>

namespace hs::validation {

std::string chip_of(const DeepBenchPoint& p) {
  return p.device.architecture + "/" + std::to_string(p.device.units);
}

std::string published_op(const DeepBenchPoint& p) {
  return p.label.substr(0, p.label.find(' '));
}

std::vector<const DeepBenchPoint*> wave_fit_sample(const std::vector<DeepBenchPoint>& deepbench_gemm,
                                                   const std::vector<DeepBenchPoint>& published) {
  std::vector<const DeepBenchPoint*> out;
  for (const auto& p : deepbench_gemm)
    if (p.precision == "fp32") out.push_back(&p);
  std::map<std::string, std::size_t> size;
  for (const auto& p : published)
    ++size[p.gpu];
  for (const auto& p : published) {
    const std::size_t stride = (size[p.gpu] + kFitPointsPerPublishedGpu - 1) / kFitPointsPerPublishedGpu;
    if (static_cast<std::size_t>(p.index) % stride == 0) out.push_back(&p);
  }
  return out;
}

PublishedWaveLogo published_wave_leave_one_chip_out(const std::vector<DeepBenchPoint>& deepbench_gemm,
                                                    const std::vector<DeepBenchPoint>& published) {
  const auto sample = wave_fit_sample(deepbench_gemm, published);
  std::set<std::string> chips;
  for (const auto& p : published)
    chips.insert(chip_of(p));
  PublishedWaveLogo out;
  std::map<std::string, std::vector<double>> by_gpu;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_group;
  std::vector<double> all;
  for (const auto& chip : chips) {
    std::vector<WavePoint> fit;
    for (const DeepBenchPoint* p : sample)
      if (chip_of(*p) != chip) fit.push_back(wave_point(*p));
    const WaveParams params = fit_wave(fit);
    out.params_by_chip[chip] = params;
    for (const auto& p : published) {
      if (chip_of(p) != chip) continue;
      const double e = percent_error(gemm_wave_time(p.shape, p.device, params).seconds, p.point.seconds);
      by_gpu[p.gpu].push_back(e);
      by_group[p.gpu][published_op(p)].push_back(e);
      all.push_back(e);
    }
  }
  for (const auto& [gpu, errors] : by_gpu)
    out.by_gpu[gpu] = summarize(errors);
  for (const auto& [gpu, groups] : by_group)
    for (const auto& [group, errors] : groups)
      out.by_gpu_group[gpu][group] = summarize(errors);
  out.all = summarize(all);
  return out;
}

} // namespace hs::validation
