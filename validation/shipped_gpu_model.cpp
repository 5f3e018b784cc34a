#include "validation/shipped_gpu_model.hpp"

#include "sim/nearest_name.hpp"
#include "validation/published_wave.hpp"
#include "validation/roofline_fit.hpp"
#include "validation/wave_fit.hpp"

#include <algorithm>
#include <cstdio>

namespace hs::validation {

namespace {

constexpr const char* kNotes =
    "Applies to every device of kind gpu that gives compute_units: its GEMMs, and its convolutions that name "
    "their dims, are costed by the learned model in the precisions it was trained on (fp32) and by the wave "
    "model it corrects in others; a convolution's gradients only by the trees, where they apply to the GPU. "
    "Every other op, and a GPU without compute_units, keeps the platform's figures. A device whose model "
    "string is one of the published boards the trees were trained on (learned-deepbench.json's boards) is "
    "costed by the trees. Any other GPU whose architecture is not given, or is outside the generations the "
    "trees were trained on (learned-deepbench.json's architectures, per vendor), or that does not give its "
    "software stack (compute_units: driver_version for NVIDIA, runtime_version and dnn_version), is costed "
    "by "
    "the wave model alone. held_out_mape_percent is GEMM's, leave one GPU out; "
    "held_out_mape_percent_by_model "
    "each DeepBench GPU's own GEMM figure with that GPU left out of the fit, and each published board's on "
    "the third of its GEMMs held out of the training; wave_held_out_mape_percent the wave model's alone, "
    "leave one GPU out; wave_held_out_mape_percent_by_model the wave model's on each board of the published "
    "GEMMs, its chip left out of the fit.";

constexpr const char* kBoardNotes =
    "The shipped GPU model (calibration-deepbench-gpu.json) as its first entry, and an entry per published "
    "board, which applies to devices of that board's model in place of the first: the shared wave model "
    "with the board's memory efficiency and sustained clock (watts_per_tflops) refitted on two thirds of "
    "its published GEMMs, held_out_mape_percent its error on the other third. A board entry costs its "
    "device's GEMMs and dimensioned convolutions in every precision by the wave model, without the trees. "
    "Every entry is optional: a platform has some of these boards, or none.";

// What the published GEMMs of newer GPUs add to the description.
std::string published_note(const PublishedKernelCheck* c, std::size_t fitted,
                           const std::optional<LearnedPublished>& learned) {
  if (!c || !c->wave_logo) return "";
  char text[600];
  std::snprintf(text, sizeof text,
                "; the wave model is also fitted on %zu of NeuSight's published fp32 GEMMs (%s) of %zu newer "
                "GPUs, at most %zu each; held out, each of those GPUs with its chip left out of the fit: "
                "wave model %.1f %%",
                fitted, c->shown_dir.c_str(), c->wave_logo->by_gpu.size(), kFitPointsPerPublishedGpu,
                c->wave_logo->all.mape);
  std::string out = text;
  if (learned) {
    std::snprintf(
        text, sizeof text,
        "; the trees are trained on every one of those GEMMs too and cost those boards by name: held "
        "out on a third of each board's GEMMs, the other two thirds in the training, %.1f %%",
        learned->seen_all.mape);
    out += text;
  }
  return out;
}

std::string learned_errors(const LearnedValidation& v) {
  char errors[384];
  std::snprintf(
      errors, sizeof errors,
      "; held out, on a GPU it was not trained on (leave one GPU out): GEMM %.1f %%, convolutions "
      "%.1f %% (data gradients %.1f %%, weight gradients %.1f %%); on held-out problems of a GPU it "
      "was trained on: GEMM %.1f %%, convolutions %.1f %%",
      v.gemm.mape, v.conv.mape, v.conv_data_grad.mape, v.conv_weight_grad.mape, v.gemm_seen.mape,
      v.conv_seen.mape);
  return errors;
}

// The held-out figures `run` names for a device of a given model.
void add_held_out_by_model(const ShippedGpuModelInputs& in, CalibrationOut& c) {
  for (const auto& [gpu, stats] : in.learned.gemm_by_gpu) {
    const auto sheet = in.sheets.find(gpu);
    c.held_out_mape_percent_by_model[sheet == in.sheets.end() || sheet->second.model.empty()
                                         ? gpu
                                         : sheet->second.model] = stats.mape;
  }
  if (in.published_check && in.published_check->wave_logo)
    for (const auto& [gpu, stats] : in.published_check->wave_logo->by_gpu)
      c.wave_held_out_mape_percent_by_model[in.published_check->models.at(gpu)] = stats.mape;
}

// The memory-bound ops' shares of the bandwidth, fitted on every published GPU, with each GPU's held-out
// error folded into one per kind.
void add_memory_bound(const PublishedKernelCheck& check, CalibrationOut& c) {
  const PublishedMemoryBound& m = *check.memory_bound;
  c.memory_efficiency = m.fit.memory_efficiency;
  c.memory_time_factor = m.fit.memory_time_factor;
  c.by_memory_type = m.fit.by_memory_type;
  for (const auto& [kind, stats] : m.held_out_by_kind)
    c.memory_held_out_mape_percent[kind] = stats.mape;
  c.measured += "; memory-bound ops (elementwise, softmax, layernorm) by shares of the datasheet bandwidth "
                "(by memory family: HBM, GDDR) "
                "fitted on NeuSight's published timings of " +
                std::to_string(m.held_out_by_gpu.size()) + " GPUs (" + check.shown_dir +
                "/memory_bound.csv, " + std::to_string(m.points) + " kernels), held out one GPU at a time";
}

// One entry per published board, for devices of its model: its own wave fit.
std::vector<CalibrationOut> board_entries(const ShippedGpuModelInputs& in, const PublishedBoards& boards) {
  std::vector<CalibrationOut> out;
  for (const auto& [gpu, fit] : boards.by_gpu) {
    CalibrationOut c;
    c.name = "published-" + gpu;
    const std::string& model = in.published_check->models.at(gpu);
    c.applies_to.models = {model};
    c.applies_to.optional = true; // a platform has some of these boards, or none
    c.measured = "NeuSight's published fp32 GEMMs (" + in.published_check->shown_dir + ") of the " + gpu +
                 ": " + std::to_string(fit.trained) + " of " +
                 std::to_string(fit.trained + fit.held_out.count) +
                 " fitted (the wave model refitted from the shared parameters), held out on the other " +
                 std::to_string(fit.held_out.count);
    c.held_out_mape_percent = fit.held_out.mape;
    c.roofline = false;
    c.wave = fit.params;
    if (in.published_check->memory_bound) add_memory_bound(*in.published_check, c);
    out.push_back(c);
  }
  return out;
}

} // namespace

namespace {

// The published boards the trees train on, each with its own fit's overhead per call taken off its times.
PublishedTraining published_training(const ShippedGpuModelInputs& in, const PublishedBoards& boards) {
  PublishedTraining t{{}, timing_overheads(boards)};
  for (const auto& p : in.published)
    t.points.push_back(&p);
  return t;
}

// Each published board's held-out figure, where the trees cost it (they were trained on it by name).
void add_boards_held_out(const ShippedGpuModelInputs& in, const LearnedPublished& learned,
                         CalibrationOut& c) {
  for (const auto& [gpu, stats] : learned.seen_by_gpu)
    c.held_out_mape_percent_by_model[in.published_check->models.at(gpu)] = stats.mape;
}

} // namespace

ShippedGpuModelFiles fit_shipped_gpu_model(const ShippedGpuModelInputs& in) {
  std::vector<WavePoint> wave_points;
  for (const DeepBenchPoint* p : wave_fit_sample(in.gemm, in.published))
    wave_points.push_back(wave_point(*p));
  std::vector<const DeepBenchPoint*> all;
  std::vector<std::string> gpus;
  std::size_t deepbench_gemms = 0;
  for (const auto* set : {&in.gemm, &in.conv, &in.conv_backward})
    for (const auto& p : *set)
      if (p.precision == "fp32") {
        all.push_back(&p);
        deepbench_gemms += set == &in.gemm;
        if (std::find(gpus.begin(), gpus.end(), p.gpu) == gpus.end()) gpus.push_back(p.gpu);
      }
  const WaveParams shared = fit_wave(wave_points);
  const bool with_published = in.published_check && in.published_check->wave_logo && !in.published.empty();
  ShippedGpuModelFiles files;
  if (with_published) {
    files.boards = fit_published_boards(in.published, shared);
    files.learned_published = evaluate_learned_published(all, in.published, files.boards, shared,
                                                         in.published_check->wave_logo->params_by_chip);
  }
  const LearnedModel model = train_learned(
      all, shared,
      "heterosim validate: XGBoost on every fp32 DeepBench GEMM and convolution problem (forward "
      "and both gradients) of " +
          in.deepbench_path +
          (with_published ? " and every published GEMM of " + in.published_check->shown_dir : ""),
      with_published ? published_training(in, files.boards) : PublishedTraining{});
  CalibrationOut c;
  c.name = "deepbench-gpu";
  c.applies_to.kinds = {"gpu"};
  c.measured =
      "DeepBench's published fp32 timings (" + in.deepbench_path + ") of " + std::to_string(gpus.size()) +
      " GPUs (" + name_list(gpus) + "): " + std::to_string(all.size()) +
      " GEMMs and convolution passes, with their datasheet figures (" + in.datasheets_path + ")" +
      learned_errors(in.learned) +
      published_note(in.published_check, wave_points.size() - deepbench_gemms, files.learned_published);
  c.held_out_mape_percent = in.learned.gemm.mape;
  add_held_out_by_model(in, c);
  if (files.learned_published) add_boards_held_out(in, *files.learned_published, c);
  c.wave_held_out_mape_percent = in.wave_held_out.mape;
  c.roofline = false;
  if (in.published_check && in.published_check->memory_bound) add_memory_bound(*in.published_check, c);
  c.wave = model.wave();
  c.learned_model = "learned-deepbench.json";
  const std::string source = "heterosim validate: every GPU's fp32 problems of " + in.deepbench_path;
  files.learned_model = model.file_text();
  files.calibration = calibration_json({c}, source, kNotes);
  if (with_published) {
    c.applies_to.optional = true; // on a platform whose GPUs are all published boards, theirs calibrate all
    std::vector<CalibrationOut> entries{c};
    for (auto& board : board_entries(in, files.boards))
      entries.push_back(std::move(board));
    files.boards_calibration = calibration_json(
        entries, source + " and NeuSight's published GEMMs of " + in.published_check->shown_dir, kBoardNotes);
  }
  return files;
}

void add_board_fits(PublishedKernelCheck& check, const ShippedGpuModelFiles& files) {
  check.boards = files.boards;
  check.learned = files.learned_published;
}

} // namespace hs::validation
