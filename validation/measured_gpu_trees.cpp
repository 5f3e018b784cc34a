#include "validation/measured_gpu_trees.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/wave_model.hpp"
#include "validation/gpu_platform.hpp"
#include "validation/learned_published.hpp"
#include "validation/published_boards.hpp"
#include "validation/shipped_gpu_check.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace hs::validation {

namespace {

// A set's GEMM as the trainer takes a published board's: its model string as the GPU, the device as the
// platform describes it.
DeepBenchPoint training_point(const KernelPoint& p, int index, const WaveDevice& device) {
  DeepBenchPoint d;
  d.gpu = device.model;
  d.precision = "fp32";
  d.label = p.label;
  d.index = index;
  d.point.kind = "gemm";
  d.point.flops = p.flops;
  d.point.bytes = p.bytes;
  d.point.seconds = p.p50;
  d.shape = blas_gemm(p.shape, 4);
  d.device = device;
  return d;
}

// The trees as `run` would take them from a calibration entry naming their file.
Calibration with_trees(const LearnedModel& model, const std::string& board) {
  Calibration c;
  Calibration::Entry e;
  e.name = board;
  e.applies_to.models = {board};
  e.wave = model.wave();
  e.learned = std::make_shared<const LearnedModel>(model);
  c.entries.push_back(std::move(e));
  return c;
}

// A set's GEMMs measured alone, split as its roofline fit splits them: every third held out.
struct GemmSplit {
  std::vector<DeepBenchPoint> train;
  MeasurementSet test;
  std::vector<bool>
      test_named; // every held-out GEMM: whether it names its dimensions (only those are tested)
};

// `residue`: which fold is held out (cpu_point_held_out; 1: the set's own split).
GemmSplit split_gemms(const MeasurementSet& set, const WaveDevice& device, int residue = 1) {
  GemmSplit out;
  out.test = set;
  out.test.points.clear();
  int index = 0;
  for (const auto& p : set.points) {
    if (p.kind != "gemm" || p.co_running != 1) continue;
    const int i = index++;
    const bool test = cpu_point_held_out(i, residue);
    if (test) out.test_named.push_back(names_gemm_dims(p));
    if (!names_gemm_dims(p)) continue;
    if (test)
      out.test.points.push_back(p);
    else
      out.train.push_back(training_point(p, i, device));
  }
  return out;
}

// The trees trained on `base` and the split's training GEMMs.
LearnedModel train_with(const GemmSplit& split, const MeasuredGpuBase& base, const WaveParams& wave,
                        const std::string& source) {
  PublishedTraining training = base.published;
  for (const auto& p : split.train)
    training.points.push_back(&p);
  return train_learned(base.deepbench, wave, source, training);
}

// What the set's roofline fit trains on (each kind's points but every third, as validate_cpu_kernels holds
// them out), less the GEMMs that name no dimensions, which the trees cannot take.
MeasurementSet training_part(const MeasurementSet& set) {
  MeasurementSet out = set;
  out.points.clear();
  std::map<std::string, int> seen;
  for (const auto& p : set.points)
    if (p.co_running == 1 && !cpu_point_held_out(seen[p.kind]++) && (p.kind != "gemm" || names_gemm_dims(p)))
      out.points.push_back(p);
  return out;
}

// The trees and the roofline fit in three folds of the training part: each fitted on two of them and scored
// on the GEMMs of the third, so that every training GEMM is scored once. Nullopt where the part is too small
// to split.
std::optional<std::pair<ErrorStats, ErrorStats>> inner_folds(const MeasurementSet& set, const Platform& gpu,
                                                             const MeasuredGpuBase& base,
                                                             const WaveParams& wave,
                                                             const WaveDevice& device) {
  const MeasurementSet part = training_part(set);
  std::vector<double> trees_errors, roofline_errors;
  for (const int fold : {0, 1, 2}) {
    CpuKernelValidation roofline;
    try {
      roofline = validate_cpu_kernels(part, 1, fold);
    } catch (const InputError&) {
      return {};
    }
    for (const auto& row : roofline.held_out)
      if (row.kind == "gemm") roofline_errors.push_back(percent_error(row.calibrated, row.measured));
    const GemmSplit split = split_gemms(part, device, fold);
    if (split.train.empty() || split.test.points.empty()) return {};
    const auto trees = check_shipped_gpu_model(
        split.test, gpu,
        with_trees(train_with(split, base, wave, "fold " + std::to_string(fold)), device.model));
    if (!trees) return {};
    trees_errors.insert(trees_errors.end(), trees->signed_errors.begin(), trees->signed_errors.end());
  }
  return std::make_pair(summarize(trees_errors), summarize(roofline_errors));
}

} // namespace

std::optional<MeasuredGpuTrees> learn_measured_gpu(const MeasurementSet& set, const Platform& gpu,
                                                   const Calibration& shipped, const MeasuredGpuBase& base) {
  if (gpu.devices.size() != 1 || gpu.devices.front().units.count <= 0 || base.deepbench.empty()) return {};
  const Calibration::Entry* entry = shipped.find(gpu.devices.front());
  if (!entry || !entry->learned) return {};
  const WaveDevice device = wave_device(gpu.devices.front(), "fp32");
  if (device.model.empty()) return {};
  const GemmSplit split = split_gemms(set, device);
  if (split.train.empty() || split.test.points.empty()) return {};
  MeasuredGpuTrees out;
  out.board = device.model;
  out.wave = entry->learned->wave();
  out.trained = static_cast<int>(split.train.size());
  out.beside = base.published.points.empty() ? "DeepBench's problems"
                                             : "DeepBench's problems and the published boards' GEMMs";
  const LearnedModel model =
      train_with(split, base, out.wave,
                 "heterosim validate: " + base.source + ", and " + std::to_string(split.train.size()) +
                     " GEMMs of " + set.device + " (" + out.board + ") measured");
  out.model_text = model.file_text();
  const auto own = check_shipped_gpu_model(split.test, gpu, with_trees(model, out.board));
  const auto before = check_shipped_gpu_model(split.test, gpu, shipped);
  if (!own || !before) return {};
  out.held_out = own->gemm;
  std::size_t next = 0;
  for (const bool named : split.test_named)
    out.held_out_errors.push_back(named ? own->signed_errors.at(next++) : std::nan(""));
  out.shipped_held_out = before->gemm;
  if (const auto inner = inner_folds(set, gpu, base, out.wave, device)) {
    out.inner_trees = inner->first;
    out.inner_roofline = inner->second;
    out.chosen = inner->first.mape < inner->second.mape;
  }
  return out;
}

std::optional<MeasuredGpuTrees>
learn_measured_gpu(const MeasurementSet& set, const std::string& deepbench_dir, const std::string& datasheets,
                   const std::vector<DeepBenchPoint>& published, const std::string& shown) {
  const Platform gpu = parse_platform(gpu_platform_json(set), "this-gpu (from " + set.device + ")");
  const Calibration shipped = load_calibration(calibration_file("deepbench-gpu"));
  if (gpu.devices.empty()) return {};
  const Calibration::Entry* entry = shipped.find(gpu.devices.front());
  if (!entry || !entry->learned) return {};
  const auto sheets = load_gpu_datasheets(datasheets);
  const auto gemm = load_deepbench(deepbench_dir, "gemm", sheets),
             conv = load_deepbench(deepbench_dir, "conv", sheets),
             conv_backward = load_deepbench(deepbench_dir, "conv_backward", sheets);
  MeasuredGpuBase base;
  for (const auto* table : {&gemm, &conv, &conv_backward})
    for (const auto& p : *table)
      if (p.precision == "fp32") base.deepbench.push_back(&p);
  if (!published.empty()) {
    base.published.timing_overhead =
        timing_overheads(fit_published_boards(published, entry->learned->wave()));
    for (const auto& p : published)
      base.published.points.push_back(&p);
  }
  base.source = "XGBoost on every fp32 DeepBench problem of " + shown;
  return learn_measured_gpu(set, gpu, shipped, base);
}

std::vector<double> trees_error_by_row(const MeasuredGpuTrees& trees, const CpuKernelValidation& v) {
  std::vector<double> out;
  std::size_t next = 0;
  for (const auto& row : v.held_out)
    out.push_back(row.kind == "gemm" ? trees.held_out_errors.at(next++) : std::nan(""));
  return out;
}

void name_trees(CalibrationOut& c, const MeasuredGpuTrees& trees, const std::string& file,
                const CpuKernelValidation& v) {
  c.learned_model = file;
  c.wave = trees.wave;
  const std::vector<double> by_trees = trees_error_by_row(trees, v);
  std::vector<double> errors;
  for (std::size_t i = 0; i < v.held_out.size(); ++i)
    errors.push_back(std::isnan(by_trees[i]) ? percent_error(v.held_out[i].calibrated, v.held_out[i].measured)
                                             : by_trees[i]);
  c.held_out_mape_percent = summarize(errors).mape;
  char figure[64];
  std::snprintf(figure, sizeof figure, "%.1f %%", trees.held_out.mape);
  c.measured += "; its GEMMs by the trees of " + file + " (" + std::to_string(trees.trained) +
                " of them learned beside " + trees.beside + "; held out " + figure + ")";
}

} // namespace hs::validation
