// `heterosim calibrate`: fit a calibration entry for one device of a platform from a workload's ops as a
// real run measured them (a times file or a torch.profiler trace), and report measured against predicted,
// per op and end to end, held out and in sample (docs/calibration.md, "Calibrating a workload from
// measured ops"). Part of the validation module, as `validate` is.
#include "cli/commands.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"
#include "sim/platform.hpp"
#include "validation/op_times.hpp"
#include "validation/workload_matching.hpp"
#include "validation/workload_report.hpp"
#include "workloads/workload_registry.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

using namespace hs::validation;

struct CalibrateOptions {
  std::string workload, platform, device, times, trace;
  std::string out = "calibrate-out";
  int hold_out_every = 3;
  std::size_t min_leaf = 1;
  int intra_op_threads = 1;
  bool roofline_only = false;
  bool force = false;
  bool quiet = false;
};

constexpr const char* kFrameworkFile = "framework-model.json";

DeviceId device_of(const Platform& p, const CalibrateOptions& o) {
  if (const auto d = p.find_device(o.device)) return *d;
  std::vector<std::string> names;
  for (const auto& d : p.devices)
    names.push_back(d.name);
  throw InputError(o.platform, "--device",
                   "no device '" + o.device + "'" + did_you_mean(o.device, names) +
                       " (devices: " + name_list(names) + ")");
}

std::string out_path(const CalibrateOptions& o, const std::string& name) {
  return (std::filesystem::path(o.out) / name).string();
}

// Every matched op's time in every pass, by name and index: a times file that matches by index.
std::vector<OpTimeRow> matched_rows(const Graph& g, const WorkloadMatch& m) {
  std::vector<OpTimeRow> rows;
  for (std::size_t pass = 0; pass < m.times.passes; ++pass)
    for (const OpId id : g.topological_order()) {
      const auto& t = m.times.seconds[static_cast<std::size_t>(id)];
      if (pass < t.size())
        rows.push_back({g.op(id).name, id, g.op(id).kind, t[pass], static_cast<long long>(pass), ""});
    }
  return rows;
}

std::string calibration_text(const WorkloadCalibration& c, const WorkloadReportInputs& in,
                             const std::string& measured) {
  char held[160];
  std::snprintf(held, sizeof held,
                "held_out_mape_percent is the per-op error of the ops held out (%s); their sum was %+.1f %% "
                "off, and the whole run %+.1f %% in sample.",
                ("one op in " + std::to_string(in.hold_out_every) + " of each kind").c_str(),
                c.held_out.error_percent(), c.in_sample.error_percent());
  CalibrationOut entry = workload_calibration_entry(c, in.device, measured, kFrameworkFile);
  if (in.device_times && in.issue_seconds > 0) entry.issue_overhead = in.issue_seconds;
  return calibration_json({entry}, "heterosim calibrate: " + in.workload + " measured on " + in.device,
                          "Applies to device " + in.device + " of " + in.platform + ". " + held);
}

int calibrate(const CalibrateOptions& o) {
  if (o.times.empty() == o.trace.empty())
    throw InputError("", "--times/--trace", "give one of --times FILE and --trace FILE");
  const std::vector<std::string> names = {"calibration.json", kFrameworkFile,    "report.json",
                                          "report.txt",       "predictions.csv", "op-times.csv"};
  if (!o.force)
    for (const auto& n : names)
      if (path_exists(out_path(o, n)))
        throw InputError(out_path(o, n), "",
                         "already exists; pass --force to overwrite or choose another --out");
  const Platform platform = load_platform(o.platform);
  const DeviceId device = device_of(platform, o);
  const Graph graph = load_workload(o.workload);
  const OpTimes measured = o.times.empty() ? op_times_from_trace(o.trace) : load_op_times(o.times);
  const WorkloadMatch match = match_workload(measured, graph);
  WorkloadReportInputs in{o.workload,
                          o.platform,
                          o.device,
                          measured.file,
                          measured.noun,
                          match.how,
                          measured.rows.size(),
                          match.times.passes,
                          fastest_pass(match.times),
                          o.hold_out_every,
                          measured.device_times,
                          measured.issue_seconds,
                          measured.device_events,
                          measured.unattributed_device_events};
  WorkloadFitOptions fo;
  fo.hold_out_every = o.hold_out_every;
  fo.framework_model = !o.roofline_only;
  fo.min_leaf = o.min_leaf;
  fo.intra_op_threads = o.intra_op_threads;
  WorkloadCalibration c =
      calibrate_workload(graph, platform, device, pick_pass(match.times, TracePass::FastestPass), fo);
  const std::string what = workload_measured_text(in);
  std::vector<std::pair<std::string, std::string>> outputs = {
      {"calibration.json", calibration_text(c, in, what)},
      {"report.json", workload_report_json(in, c)},
      {"report.txt", workload_report_text(in, c)},
      {"predictions.csv", workload_predictions_csv(graph, c)},
      {"op-times.csv", op_times_csv(matched_rows(graph, match))}};
  if (c.has_framework) {
    c.framework.source = what;
    outputs.emplace_back(kFrameworkFile, c.framework.to_json().dump(1) + "\n");
  }
  std::filesystem::create_directories(o.out);
  for (const auto& [name, text] : outputs)
    write_file_atomically(out_path(o, name), text, o.force);
  if (!o.quiet)
    std::cout << workload_report_text(in, c) << "\nwrote the calibration and the report to " << o.out
              << "/\n";
  return 0;
}

Action calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit a device's calibration from a workload's ops as a real run measured them");
  cmd->add_option("--workload", o->workload, "The workload measured: a builder spec or a graph file")
      ->required();
  cmd->add_option("--platform", o->platform, "The platform (file or preset) holding the measured device")
      ->required();
  cmd->add_option("--device", o->device, "The device the ops ran on; the calibration applies to it")
      ->required();
  cmd->add_option("--times", o->times,
                  "Measured per-op times (CSV: op or index, kind, seconds, optional pass)");
  cmd->add_option(
      "--trace", o->trace,
      "A torch.profiler Chrome trace of the run (top-level CPU ops; on a GPU trace, the device time "
      "of the kernels each launched, and the host's issue time per op)");
  cmd->add_option("--out", o->out, "Directory for calibration.json, the framework model and the report")
      ->capture_default_str();
  cmd->add_option("--hold-out-every", o->hold_out_every,
                  "Hold every Nth op of each kind out of the fit that predicts it")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->add_option("--min-leaf", o->min_leaf, "The trees' fewest ops per leaf (validate's are 3)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--intra-op-threads", o->intra_op_threads,
                  "The intra-op threads the measured run used (torch.get_num_threads()); the trees are "
                  "keyed by it and `run` uses them at that count")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--roofline-only", o->roofline_only,
                "Fit the roofline per kind alone (no framework model trees)");
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("--quiet", o->quiet, "Print nothing but errors");
  return [o] { return calibrate(*o); };
}

HS_REGISTER_COMMAND(calibrate, {"calibrate", calibrate_command})

} // namespace
} // namespace hs::cli
