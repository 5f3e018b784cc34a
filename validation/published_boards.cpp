#include "validation/published_boards.hpp"

#include "validation/published_wave.hpp"

namespace hs::validation {

PublishedBoards fit_published_boards(const std::vector<DeepBenchPoint>& published, const WaveParams& shared) {
  std::map<std::string, std::vector<WavePoint>> train;
  for (const auto& p : published)
    if (!held_out(p.index)) train[p.gpu].push_back(wave_point(p));
  PublishedBoards out;
  for (const auto& [gpu, points] : train) {
    const BoardRefit fit = refit_wave_board(points, shared);
    out.by_gpu[gpu].params = fit.params;
    out.by_gpu[gpu].timing_overhead = fit.timing_overhead;
    out.by_gpu[gpu].clock_share = sustained_clock_share(points.front().device, fit.params);
    out.by_gpu[gpu].trained = points.size();
  }
  std::vector<double> all;
  std::map<std::string, std::vector<double>> errors;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_group;
  for (const auto& p : published) {
    const auto fit = out.by_gpu.find(p.gpu);
    if (!held_out(p.index) || fit == out.by_gpu.end()) continue;
    // The timing's own overhead is part of what was measured, so it is part of what is compared.
    const double predicted =
        gemm_wave_time(p.shape, p.device, fit->second.params).seconds + fit->second.timing_overhead;
    const double e = percent_error(predicted, p.point.seconds);
    all.push_back(e);
    errors[p.gpu].push_back(e);
    by_group[p.gpu][published_op(p)].push_back(e);
  }
  for (auto& [gpu, fit] : out.by_gpu) {
    fit.held_out = summarize(errors[gpu]);
    for (const auto& [group, e] : by_group[gpu])
      fit.held_out_by_group[group] = summarize(e);
  }
  out.all = summarize(all);
  return out;
}

} // namespace hs::validation
