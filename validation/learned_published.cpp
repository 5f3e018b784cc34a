#include "validation/learned_published.hpp"

#include "validation/published_wave.hpp"

#include <cmath>

namespace hs::validation {

namespace {

// The trees' prediction of `p`'s timing, applied whether or not the model would cost its board.
double timing_by_trees(const LearnedModel& model, const DeepBenchPoint& p,
                       const PublishedTraining& training) {
  WaveDevice hidden = p.device;
  hidden.driver_version = hidden.runtime_version = hidden.dnn_version = 0;
  const double base = gemm_wave_time(p.shape, p.device, model.wave()).seconds;
  const auto r = model.log_ratios({learned_features(p.shape, hidden, false, model.wave())});
  const auto ov = training.timing_overhead.find(p.gpu);
  return base * std::exp(r.at(0)) + (ov == training.timing_overhead.end() ? 0.0 : ov->second);
}

void seen(const std::vector<const DeepBenchPoint*>& deepbench, const std::vector<DeepBenchPoint>& published,
          const PublishedTraining& all, const WaveParams& shared, LearnedPublished& out) {
  PublishedTraining training{{}, all.timing_overhead};
  for (const auto& p : published)
    if (!held_out(p.index)) training.points.push_back(&p);
  const LearnedModel model = train_learned(deepbench, shared, "published boards seen", training);
  std::map<std::string, std::vector<double>> by_gpu;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_group;
  std::vector<double> every;
  for (const auto& p : published) {
    if (!held_out(p.index)) continue;
    const double e = percent_error(timing_by_trees(model, p, training), p.point.seconds);
    by_gpu[p.gpu].push_back(e);
    by_group[p.gpu][published_op(p)].push_back(e);
    every.push_back(e);
  }
  for (const auto& [gpu, errors] : by_gpu)
    out.seen_by_gpu[gpu] = summarize(errors);
  for (const auto& [gpu, groups] : by_group)
    for (const auto& [group, errors] : groups)
      out.seen_by_group[gpu][group] = summarize(errors);
  out.seen_all = summarize(every);
}

void chip_out(const std::vector<const DeepBenchPoint*>& deepbench,
              const std::vector<DeepBenchPoint>& published, const PublishedTraining& all,
              const std::map<std::string, WaveParams>& wave_by_chip, LearnedPublished& out) {
  std::map<std::string, std::vector<double>> by_gpu;
  std::vector<double> every;
  for (const auto& [chip, wave] : wave_by_chip) {
    std::vector<const DeepBenchPoint*> kept;
    for (const auto* p : deepbench)
      if (chip_of(*p) != chip) kept.push_back(p);
    PublishedTraining training{{}, all.timing_overhead};
    for (const auto& p : published)
      if (chip_of(p) != chip) training.points.push_back(&p);
    const LearnedModel model = train_learned(kept, wave, "chip out " + chip, training);
    for (const auto& p : published)
      if (chip_of(p) == chip) {
        by_gpu[p.gpu].push_back(percent_error(timing_by_trees(model, p, training), p.point.seconds));
        every.push_back(by_gpu[p.gpu].back());
      }
  }
  for (const auto& [gpu, errors] : by_gpu)
    out.chip_out_by_gpu[gpu] = summarize(errors);
  out.chip_out_all = summarize(every);
}

} // namespace

std::map<std::string, double> timing_overheads(const PublishedBoards& boards) {
  std::map<std::string, double> out;
  for (const auto& [gpu, fit] : boards.by_gpu)
    out[gpu] = fit.timing_overhead;
  return out;
}

LearnedPublished evaluate_learned_published(const std::vector<const DeepBenchPoint*>& deepbench,
                                            const std::vector<DeepBenchPoint>& published,
                                            const PublishedBoards& boards, const WaveParams& shared,
                                            const std::map<std::string, WaveParams>& wave_by_chip) {
  LearnedPublished out;
  const PublishedTraining all{{}, timing_overheads(boards)};
  std::vector<const DeepBenchPoint*> forward; // the gradients' trees are not scored here
  for (const auto* p : deepbench)
    if (p->shape.conv_pass == 0) forward.push_back(p);
  seen(forward, published, all, shared, out);
  chip_out(forward, published, all, wave_by_chip, out);
  return out;
}

} // namespace hs::validation
