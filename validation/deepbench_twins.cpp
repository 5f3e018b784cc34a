// The twin transfer: each GPU predicted from the measured times of the other GPUs of its architecture
// on the same problems, scaled by the wave model's ratio between the two. It uses everything a model
// could know about an unseen GPU from its kin, short of measuring it, so it is a reference for what
// leave one GPU out can reach on these data, not a model. And the siblings: GPUs alike in everything a
// datasheet-driven model sees, whose measured times the model must hold in the ratio of their figures.
#include "validation/deepbench.hpp"
#include "validation/measurement_set.hpp"

#include <iterator>
#include <map>

namespace hs::validation {

namespace {

// A problem's key within one GPU's fp32 block: its label and how many times the label came before (a
// convolution's label leaves out padding and stride, so it can repeat).
using Block = std::map<std::string, const DeepBenchPoint*>;

// Every GPU's fp32 block, keyed as above, in one pass.
std::map<std::string, Block> fp32_blocks(const std::vector<DeepBenchPoint>& points) {
  std::map<std::string, Block> blocks;
  std::map<std::string, std::map<std::string, int>> seen; // per GPU, per label
  for (const auto& p : points)
    if (p.precision == "fp32") blocks[p.gpu][p.label + "#" + std::to_string(seen[p.gpu][p.label]++)] = &p;
  return blocks;
}

bool siblings(const WaveDevice& a, const WaveDevice& b) {
  return !a.architecture.empty() && a.architecture == b.architecture && a.memory_type == b.memory_type &&
         a.driver_version == b.driver_version && a.runtime_version == b.runtime_version &&
         a.dnn_version == b.dnn_version;
}

void add_siblings(const std::map<std::string, Block>& blocks, DeepBenchResult& res) {
  for (auto a = blocks.begin(); a != blocks.end(); ++a)
    for (auto b = std::next(a); b != blocks.end(); ++b) {
      const auto wave = res.wave_fit_shared_without.find(b->first);
      if (wave == res.wave_fit_shared_without.end() ||
          !siblings(a->second.begin()->second->device, b->second.begin()->second->device))
        continue;
      std::vector<double> measured, modelled;
      for (const auto& [key, pa] : a->second) {
        const auto pb = b->second.find(key);
        if (pb == b->second.end()) continue;
        measured.push_back(pb->second->point.seconds / pa->point.seconds);
        modelled.push_back(gemm_wave_time(pb->second->shape, pb->second->device, wave->second).seconds /
                           gemm_wave_time(pa->shape, pa->device, wave->second).seconds);
      }
      if (!measured.empty())
        res.siblings.push_back({a->first, b->first, static_cast<int>(measured.size()),
                                percentile(measured, 0.5), percentile(modelled, 0.5)});
    }
}

} // namespace

void evaluate_deepbench_twins(const std::vector<DeepBenchPoint>& points, DeepBenchResult& res) {
  std::map<std::string, std::string> architecture;
  for (const auto& p : points)
    if (p.precision == "fp32" && !p.device.architecture.empty()) architecture[p.gpu] = p.device.architecture;
  const std::map<std::string, Block> blocks = fp32_blocks(points);
  std::vector<double> all_scaled, all_unscaled;
  for (const auto& [gpu, arch] : architecture) {
    const auto wave = res.wave_fit_shared_without.find(gpu);
    if (wave == res.wave_fit_shared_without.end()) continue;
    const Block& own = blocks.at(gpu);
    std::vector<double> scaled, unscaled;
    for (const auto& [twin, twin_arch] : architecture) {
      if (twin == gpu || twin_arch != arch) continue;
      for (const auto& [key, t] : blocks.at(twin)) {
        const auto g = own.find(key);
        if (g == own.end()) continue;
        const double ratio = gemm_wave_time(g->second->shape, g->second->device, wave->second).seconds /
                             gemm_wave_time(t->shape, t->device, wave->second).seconds;
        scaled.push_back(percent_error(t->point.seconds * ratio, g->second->point.seconds));
        unscaled.push_back(percent_error(t->point.seconds, g->second->point.seconds));
      }
    }
    if (scaled.empty()) continue;
    res.twin_scaled[gpu] = summarize(scaled);
    res.twin_unscaled[gpu] = summarize(unscaled);
    all_scaled.insert(all_scaled.end(), scaled.begin(), scaled.end());
    all_unscaled.insert(all_unscaled.end(), unscaled.begin(), unscaled.end());
  }
  res.twin_scaled_all = summarize(all_scaled);
  res.twin_unscaled_all = summarize(all_unscaled);
  add_siblings(blocks, res);
}

} // namespace hs::validation
