// `heterosim validate`: calibrate the cost model on measured kernels, predict held-out kernels, whole-graph
// executions and DeepBench's published GPU timings, and report the errors.
#include "cli/commands.hpp"
#include "sim/data_directory.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"
#include "validation/cpu_measure.hpp"
#include "validation/gpu_platform.hpp"
#include "validation/learned_fit.hpp"
#include "validation/measured_gpu_trees.hpp"
#include "validation/report.hpp"
#include "validation/shipped_gpu_model.hpp"
#include "validation/thread_platform.hpp"
#include "validation/torch_calibration.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;
using namespace hs::validation;

struct ValidateOptions {
  bool measure = false;
  bool quick = false;
  int rounds = 3;
  // Empty: the committed sets in the data directory (sim/data_directory.hpp), found when validate runs.
  std::string cpu, executions, deepbench, datasheets, torch_kernels, torch_runs, published;
  std::string out = "validation-out";
  std::string note;
  std::vector<int> threads = {1, 2};
  bool force = false;
  bool quiet = false;
};

void use_committed_sets(ValidateOptions& o) {
  const auto committed = [](std::string& option, const char* file) {
    if (option.empty()) option = data_directory() + "/validation/" + file;
  };
  committed(o.cpu, "measurements/cpu-kernels.json");
  committed(o.executions, "measurements/cpu-executions.json");
  committed(o.deepbench, "measurements/deepbench");
  committed(o.published, "measurements/neusight");
  committed(o.datasheets, "gpu_datasheets.csv");
  committed(o.torch_kernels, "measurements/torch/kernels.json");
  committed(o.torch_runs, "measurements/torch/models.json");
}

using Outputs = std::vector<std::pair<std::string, std::string>>; // path, text

std::string out_path(const ValidateOptions& o, const std::string& name) {
  return (fs::path(o.out) / name).string();
}

bool is_gpu_set(const MeasurementSet& m) {
  return m.device_kind == "gpu";
}

// The calibration file of a kernel set at `threads` co-running threads: named for the kind of device it
// was measured on, so a GPU set never writes a file that says "cpu".
std::string calibration_file(const MeasurementSet& m, int threads) {
  return std::string(is_gpu_set(m) ? "calibration-gpu" : "calibration-cpu") +
         (threads == 1 ? "" : "-" + std::to_string(threads) + "threads") + ".json";
}

// Who a kernel set's calibration applies to: a GPU set's to that GPU (its device name and the model its
// driver reported), a CPU set's to every thread device (kind cpu) of the platform built from it.
CalibrationOut kernel_calibration(const MeasurementSet& m, const CpuKernelValidation& v, int threads,
                                  const std::string& file) {
  CalibrationOut c;
  c.fit = v.fit;
  c.held_out_mape_percent = v.calibrated_all.mape;
  const std::string date = m.environment.count("date") ? m.environment.at("date") : "an unrecorded date";
  const std::string points = std::to_string(v.train) + " kernel measurements of " + file + " (" +
                             std::to_string(threads) + " co-running thread(s), " + date + ")";
  if (is_gpu_set(m)) {
    c.name = measured_model(m);
    c.applies_to.devices = {m.device};
    c.applies_to.models = {measured_model(m)};
    c.measured = "GPU kernels on " + measured_model(m) + ": " + points;
  } else {
    c.name = "cpu";
    c.applies_to.kinds = {"cpu"};
    c.measured = "CPU kernels on " +
                 (m.environment.count("cpu_model") ? m.environment.at("cpu_model") : m.device) + ": " +
                 points;
  }
  return c;
}

// `path` as a reader of a committed file should see it: relative to the data directory when inside it.
std::string shown_path(const std::string& path) {
  const std::string root = data_directory() + "/";
  return path.rfind(root, 0) == 0 ? path.substr(root.size()) : path;
}

// One fit per count of co-running threads the kernel set was measured at.
FitsByThreads fit_kernels(const MeasurementSet& kernels, ValidationReport& r) {
  FitsByThreads fits;
  for (int threads : co_running_counts(kernels)) {
    r.cpu[threads] = validate_cpu_kernels(kernels, threads);
    fits[threads] = r.cpu[threads].fit;
  }
  return fits;
}

// A calibration per fit. With whole-graph executions, a CPU set's launch overhead also holds the executor's
// own time per op, as the replays `validate` scores add it, so that `run` on the written platform is the
// replay the report validated.
void write_kernel_calibrations(const MeasurementSet& kernels, const ValidateOptions& o,
                               const ValidationReport& r, const std::optional<ExecutionSet>& executions,
                               Outputs& outputs) {
  std::optional<ExecutorOverhead> executor;
  std::string executor_note;
  if (executions && !is_gpu_set(kernels)) {
    executor = executor_overhead_all_graphs(*executions);
    char text[160];
    std::snprintf(text, sizeof text, "; launch overhead with the executor's %.1f us per op (%d graphs' ",
                  executor->seconds_per_op * 1e6, executor->graphs);
    executor_note = text + std::string("one-thread runs in ") + o.executions + ")";
  }
  for (const auto& [threads, validation] : r.cpu) {
    CalibrationOut c = kernel_calibration(kernels, validation, threads, o.cpu);
    if (r.measured_gpu_trees && r.measured_gpu_trees->chosen && threads == 1)
      name_trees(c, *r.measured_gpu_trees, "learned-gpu.json", validation);
    if (executor) {
      c.fit.launch_overhead += executor->seconds_per_op;
      c.measured += executor_note;
    }
    const std::string note =
        is_gpu_set(kernels)
            ? "Applies to the measured GPU (by device name and model); this-gpu.json in the same folder is "
              "a platform for it."
            : "Applies to devices of kind cpu (one thread each) of a platform built from the same "
              "measurement "
              "set (see this-cpu-*.json in the same folder)" +
                  std::string(threads == 1 ? "." : ", when all its threads are busy at once.");
    outputs.emplace_back(out_path(o, calibration_file(kernels, threads)),
                         calibration_json({c}, "heterosim validate: least-squares fit on " + o.cpu, note));
  }
}

// The GPU model against DeepBench, with a calibration per GPU fitted on its training part.
void compare_with_deepbench(const ValidateOptions& o, const std::vector<DeepBenchPoint>& published,
                            ValidationReport& r, Outputs& outputs) {
  const auto sheets = load_gpu_datasheets(o.datasheets);
  r.deepbench_dir = o.deepbench;
  const auto gemm = load_deepbench(o.deepbench, "gemm", sheets),
             conv = load_deepbench(o.deepbench, "conv", sheets),
             conv_backward = load_deepbench(o.deepbench, "conv_backward", sheets);
  r.deepbench_gemm = evaluate_deepbench(gemm, "gemm");
  if (r.published) r.published->wave_logo = published_wave_leave_one_chip_out(gemm, published);
  r.deepbench_conv = evaluate_deepbench(conv, "conv");
  if (learned_models_built()) {
    r.learned = evaluate_learned(gemm, conv, conv_backward, *r.deepbench_gemm);
    const auto files = fit_shipped_gpu_model({gemm, conv, conv_backward, published, sheets, *r.learned,
                                              r.deepbench_gemm->wave_leave_one_gpu_out_shared_all,
                                              r.published ? &*r.published : nullptr, shown_path(o.deepbench),
                                              shown_path(o.datasheets)});
    outputs.emplace_back(out_path(o, "learned-deepbench.json"), files.learned_model);
    outputs.emplace_back(out_path(o, "calibration-deepbench-gpu.json"), files.calibration);
    if (r.published) add_board_fits(*r.published, files);
    if (!files.boards_calibration.empty())
      outputs.emplace_back(out_path(o, "calibration-published-boards.json"), files.boards_calibration);
  }
  for (const auto& b : r.deepbench_gemm->blocks)
    if (b.precision == "fp32")
      outputs.emplace_back(out_path(o, "calibration-deepbench-gemm-" + b.gpu + ".json"),
                           deepbench_calibration(b, sheets.at(b.gpu),
                                                 r.deepbench_gemm->wave_fit_own.at(b.gpu),
                                                 r.deepbench_gemm->wave_calibrated_by_gpu.at(b.gpu).mape,
                                                 shown_path(o.deepbench), shown_path(o.datasheets)));
}

// The shipped GPU model on the published GEMMs of newer GPUs (the wave model fitted without each GPU's chip
// is added by compare_with_deepbench, which has DeepBench's GEMMs for the rest of that fit). Returns the
// points, loaded once for both; none when skipped.
std::vector<DeepBenchPoint> check_published(const ValidateOptions& o, ValidationReport& r) {
  if (o.published == "none") return {};
  auto points = load_published_gemms(o.published);
  // The committed model, which this run may be about to replace: one of an older format does not load, and
  // then only its check is skipped, so that one run writes the new model.
  std::optional<Calibration> shipped;
  std::string unavailable;
  try {
    shipped = load_calibration(hs::calibration_file("deepbench-gpu"));
  } catch (const InputError& e) {
    unavailable = e.what();
  }
  r.published = check_published_kernels(o.published, points, shipped ? &*shipped : nullptr);
  r.published->shipped_unavailable = unavailable;
  r.published->shown_dir = shown_path(o.published);
  return points;
}

// Whole PyTorch models, each predicted from a calibration that excluded it.
// The torch models predicted leave-one-network-out, and the framework model fitted on all of them with a
// calibration per thread count for `run` (validation/torch_calibration.hpp).
TorchValidation predict_torch_models(const ValidateOptions& o, Outputs& outputs) {
  const MeasurementSet kernels = load_measurement_set(o.torch_kernels);
  TorchValidation v = validate_torch(kernels, o.torch_kernels, load_torch_runs(o.torch_runs), o.torch_runs);
  for (auto& [name, text] : torch_calibration_files(kernels, v, "torch-framework-model.json"))
    outputs.emplace_back(out_path(o, name), std::move(text));
  return v;
}

// The platforms the calibrations apply to: one per thread count for a CPU set, the GPU alone for a GPU set.
void write_platforms(const MeasurementSet& kernels, const ValidateOptions& o, Outputs& outputs) {
  if (is_gpu_set(kernels)) {
    outputs.emplace_back(out_path(o, "this-gpu.json"), gpu_platform_json(kernels));
    return;
  }
  for (int t : o.threads)
    outputs.emplace_back(out_path(o, "this-cpu-" + std::to_string(t) + "t.json"),
                         thread_platform_json(kernels, t));
}

// The shipped GPU model on a GPU set's GEMMs, costed on this-gpu.json as `run` would cost them.
std::optional<ShippedGpuCheck> shipped_gpu_check(const MeasurementSet& kernels) {
  const Platform gpu = parse_platform(gpu_platform_json(kernels), "this-gpu (from " + kernels.device + ")");
  return check_shipped_gpu_model(kernels, gpu, load_calibration(hs::calibration_file("deepbench-gpu")));
}

// A GPU set's GEMMs learned by the trees (validation/measured_gpu_trees.hpp), written as learned-gpu.json.
void learn_gpu_set(const MeasurementSet& kernels, const ValidateOptions& o,
                   const std::vector<DeepBenchPoint>& published, ValidationReport& r, Outputs& outputs) {
  if (!is_gpu_set(kernels) || !learned_models_built()) return;
  const std::string shown =
      shown_path(o.deepbench) +
      (published.empty() ? "" : " and every published GEMM of " + shown_path(o.published));
  if (o.deepbench != "none")
    r.measured_gpu_trees = learn_measured_gpu(kernels, o.deepbench, o.datasheets, published, shown);
  if (o.deepbench == "none")
    r.measured_gpu_trees_skipped = "no DeepBench problems to learn beside (--deepbench none)";
  else if (!r.measured_gpu_trees)
    r.measured_gpu_trees_skipped = "too few GEMMs named by m, n and k, or a GPU without its SM count";
  else if (r.measured_gpu_trees->chosen)
    outputs.emplace_back(out_path(o, "learned-gpu.json"), r.measured_gpu_trees->model_text);
}

// A GPU set: the shipped GPU model on its GEMMs, and no whole graphs (they run on CPU threads: nothing to
// compare).
void check_gpu_set(const MeasurementSet& kernels, ValidateOptions& o, ValidationReport& r) {
  if (!is_gpu_set(kernels)) return;
  r.shipped_gpu = shipped_gpu_check(kernels);
  o.executions = "none";
}

// Every file validate may write, checked before any measurement runs.
void refuse_overwriting(const ValidateOptions& o) {
  std::vector<std::string> names = {
      "report.json",          "report.txt",       "calibration-cpu.json", "this-gpu.json",
      "calibration-gpu.json", "cpu-kernels.json", "cpu-executions.json",  "torch-framework-model.json",
      "learned-gpu.json"};
  for (int t : o.threads) {
    names.push_back("calibration-torch-" + std::to_string(t) + "t.json");
    names.push_back("this-cpu-" + std::to_string(t) + "t.json");
    names.push_back("calibration-cpu-" + std::to_string(t) + "threads.json");
    names.push_back("calibration-gpu-" + std::to_string(t) + "threads.json");
  }
  if (o.deepbench != "none")
    for (const char* name : {"learned-deepbench.json", "calibration-deepbench-gpu.json"})
      names.push_back(name);
  if (o.deepbench != "none")
    for (const auto& entry : load_gpu_datasheets(o.datasheets))
      names.push_back("calibration-deepbench-gemm-" + entry.first + ".json");
  if (!o.force)
    for (const auto& n : names)
      if (path_exists(out_path(o, n)))
        throw InputError(out_path(o, n), "",
                         "already exists; pass --force to overwrite or choose another --out");
}

// Whole graphs run for real on threads (with --measure) or loaded, and predicted by replays; none when
// there are none to compare.
template <typename Say>
std::optional<ExecutionSet> whole_graphs(const MeasurementSet& kernels, const FitsByThreads& fits,
                                         ValidateOptions& o, ValidationReport& r, const Say& say) {
  if (o.measure) {
    say("running whole graphs for real on threads...");
    ExecutionPlanOptions eo;
    eo.threads = o.threads;
    if (o.quick) {
      eo.graphs = 2;
      eo.ops = 16;
      eo.repeats = 5;
      eo.rounds = 1;
    }
    eo.progress = [&](const std::string& s) { say("  " + s); };
    const ExecutionSet set = measure_executions(kernels, fits, eo);
    o.executions = out_path(o, "cpu-executions.json");
    write_file_atomically(o.executions, execution_set_json(set), o.force);
  }
  if (o.executions == "none") return std::nullopt;
  ExecutionSet set = load_execution_set(o.executions);
  r.executions_file = o.executions;
  r.end_to_end = predict_executions(set, kernels, fits);
  return set;
}

int validate(ValidateOptions o) {
  use_committed_sets(o);
  const auto say = [&](const std::string& line) {
    if (!o.quiet) std::cerr << line << "\n";
  };
  Outputs outputs;
  refuse_overwriting(o);
  ValidationReport r;
  MeasurementSet kernels;
  if (o.measure) {
    say("measuring CPU kernels on one thread" + std::string(o.quick ? " (quick grid)" : "") + "...");
    CpuMeasureOptions mo;
    mo.quick = o.quick;
    mo.note = o.note;
    mo.rounds = o.rounds;
    mo.co_running = *std::max_element(o.threads.begin(), o.threads.end());
    mo.progress = [&](const std::string& s) { say("  " + s); };
    kernels = measure_cpu(mo);
    o.cpu = out_path(o, "cpu-kernels.json");
    write_file_atomically(o.cpu, measurement_set_json(kernels), o.force);
  } else {
    kernels = load_measurement_set(o.cpu);
  }
  r.cpu_measurements = o.cpu;
  r.cpu_environment = kernels.environment;
  r.kernel_device_kind = kernels.device_kind;
  const FitsByThreads fits = fit_kernels(kernels, r);
  if (!fits.count(1)) throw InputError(o.cpu, "points", "no kernel measured alone (co_running_threads 1)");
  write_platforms(kernels, o, outputs);
  check_gpu_set(kernels, o, r);
  const auto executions = whole_graphs(kernels, fits, o, r, say);
  const auto published = check_published(o, r);
  learn_gpu_set(kernels, o, published, r, outputs);
  write_kernel_calibrations(kernels, o, r, executions, outputs);
  if (o.deepbench != "none") compare_with_deepbench(o, published, r, outputs);
  if (o.torch_runs != "none") r.torch = predict_torch_models(o, outputs);
  const std::string text = validation_report_text(r);
  outputs.emplace_back(out_path(o, "report.json"), validation_report_json(r));
  outputs.emplace_back(out_path(o, "report.txt"), text);
  for (const auto& [path, body] : outputs)
    write_file_atomically(path, body, o.force);
  if (!o.quiet) std::cout << text << "\nwrote the report, calibrations and platforms to " << o.out << "/\n";
  return 0;
}

Action validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand(
      "validate", "Calibrate on measured kernels and report prediction errors on held-out ones");
  cmd->add_flag(
      "--measure", o->measure,
      "Measure this CPU now (kernels, then whole graphs on threads) instead of reading the committed sets");
  cmd->add_flag("--quick", o->quick, "With --measure: a reduced grid and fewer graphs (well under a minute)");
  cmd->add_option("--rounds", o->rounds,
                  "With --measure: time the kernel grid this many times over, interleaved (1 with --quick)")
      ->check(CLI::Range(1, 50));
  cmd->add_option("--cpu", o->cpu,
                  "Kernel measurement set (heterosim-measurements: a CPU's, or a GPU's as hs_measure_cuda "
                  "writes it); default: the committed validation/measurements/cpu-kernels.json");
  cmd->add_option("--executions", o->executions,
                  "Whole-graph executions (heterosim-executions), or none; default: the committed "
                  "validation/measurements/cpu-executions.json");
  cmd->add_option("--deepbench", o->deepbench,
                  "Folder with DeepBench gemm.csv and conv.csv, or none; default: the committed "
                  "validation/measurements/deepbench");
  cmd->add_option("--published-kernels", o->published,
                  "Folder with published GEMM timings of other GPUs (gemm.csv, gpus.csv), or none; default: "
                  "the committed validation/measurements/neusight");
  cmd->add_option(
      "--torch-kernels", o->torch_kernels,
      "Kernel grid measured through PyTorch (validation/torch/measure_torch.py kernels); default: the "
      "committed validation/measurements/torch/kernels.json");
  cmd->add_option(
      "--torch-models", o->torch_runs,
      "Whole models run through PyTorch (measure_torch.py models), or none; default: the committed "
      "validation/measurements/torch/models.json");
  cmd->add_option(
      "--datasheets", o->datasheets,
      "GPU datasheet figures for DeepBench; default: the committed validation/gpu_datasheets.csv");
  cmd->add_option("--threads", o->threads, "Thread counts (devices) for whole-graph executions")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--note", o->note,
                  "With --measure: a note stored in the environment snapshot (e.g. machine load)");
  cmd->add_option("--out", o->out, "Directory for report.json, report.txt, calibrations and platforms")
      ->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("--quiet", o->quiet, "Print nothing but errors");
  return [o] { return validate(*o); };
}

HS_REGISTER_COMMAND(validate, {"validate", validate_command})

} // namespace
} // namespace hs::cli
