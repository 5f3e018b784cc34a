#include "validation/torch_validation.hpp"

#include "validation/framework_cost_model.hpp"
#include "validation/profiler_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace hs::validation {

namespace {

struct RunPrediction {
  double total = 0.0, unmodelled = 0.0;
  std::vector<double> op_errors;                               // percent, ops that do work
  std::vector<std::pair<std::string, double>> op_errors_kinds; // (kind, percent)
  std::map<std::string, std::pair<double, double>> by_kind;    // kind -> (measured, predicted)
};

RunPrediction predict_run(const FrameworkCostModel& model, const TorchRun& run,
                          const std::vector<double>& truth) {
  RunPrediction r;
  for (std::size_t i = 0; i < run.ops.size(); ++i) {
    const KernelPoint& op = run.ops[i];
    if (!model.knows(op.kind)) {
      r.unmodelled += truth[i];
      continue;
    }
    const double t = model.predict(op, run.threads);
    r.total += t;
    r.by_kind[op.kind].first += truth[i];
    r.by_kind[op.kind].second += t;
    if (op.flops > 0 || op.bytes > 0) {
      r.op_errors.push_back(percent_error(t, truth[i]));
      r.op_errors_kinds.emplace_back(op.kind, r.op_errors.back());
    }
  }
  return r;
}

// Per kind, how many of a pass's ops took each library path, named by the call that shows it (oneDNN, the
// native im2col path, BLAS); a trace of k passes counts each op k times.
std::map<std::string, int> library_paths(const std::vector<TraceOp>& trace, const TorchRun& run) {
  std::map<std::string, int> paths, in_trace, in_run;
  for (const auto& op : run.ops)
    ++in_run[op.kind];
  for (const auto& op : trace) {
    const std::string kind = kind_of_aten_op(op.name);
    if (kind != "conv2d" && kind != "gemm") continue;
    std::string path = "no library call";
    for (const auto& call : op.calls)
      if (call.find("mkldnn") != std::string::npos || call.find("slow_conv") != std::string::npos ||
          call.find("thnn") != std::string::npos || call == "aten::addmm" || call == "aten::bmm" ||
          call == "aten::mm") {
        path = call;
        break;
      }
    ++paths[kind + " via " + path];
    ++in_trace[kind];
  }
  for (auto& [path, count] : paths) {
    const std::string kind = path.substr(0, path.find(' '));
    const int passes = in_run[kind] > 0 ? std::max(1, in_trace[kind] / in_run[kind]) : 1;
    count /= passes;
  }
  return paths;
}

std::string run_name(const TorchRun& r) {
  return r.model + " at " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
}

} // namespace

std::vector<KernelPoint> torch_training_points(const MeasurementSet& kernels, const TorchRunSet& runs,
                                               const std::string& held_out_network,
                                               std::vector<std::string>& inputs) {
  std::vector<KernelPoint> points = kernels.points;
  inputs = {"kernel grid: " + std::to_string(kernels.points.size()) + " points"};
  for (const auto& run : runs.runs) {
    if (run.network == held_out_network) continue;
    points.insert(points.end(), run.ops.begin(), run.ops.end());
    inputs.push_back(run_name(run) + ": " + std::to_string(run.ops.size()) + " ops");
  }
  return points;
}

TorchValidation validate_torch(const MeasurementSet& kernels, const std::string& kernels_file,
                               const TorchRunSet& runs, const std::string& runs_file) {
  TorchValidation v;
  v.kernels_file = kernels_file;
  v.runs_file = runs_file;
  v.environment = runs.environment;
  std::set<std::string> networks;
  for (const auto& r : runs.runs)
    networks.insert(r.network);
  // Each run's ops timed as its profiler trace saw them, when it has one: eager PyTorch as the user runs
  // it, without the interpreter that times fx nodes one by one. The other networks' ops train with their
  // times in their run's fastest pass, so that what the model learns adds up to a whole run, as the
  // end-to-end figure it predicts is a fastest whole run (each op's fastest of five passes summed to 2-15 %
  // less than any pass did on the ResNet traces). The held-out network's ops are judged against their own
  // fastest of the passes, the steadiest per-op figure, and also against the fastest pass.
  TorchRunSet timed = runs;
  std::vector<std::vector<TraceOp>> traces;
  std::vector<std::vector<double>> fastest_each, fastest_pass;
  for (auto& run : timed.runs) {
    traces.emplace_back();
    fastest_each.emplace_back();
    fastest_pass.emplace_back();
    if (run.profiler_trace.empty()) continue; // its ops keep their fx-node times
    traces.back() = load_profiler_trace(run.profiler_trace);
    fastest_each.back() = trace_op_seconds(traces.back(), run, run.profiler_trace, TracePass::FastestEach);
    fastest_pass.back() = trace_op_seconds(traces.back(), run, run.profiler_trace, TracePass::FastestPass);
    for (std::size_t i = 0; i < run.ops.size(); ++i)
      if (const double t = fastest_pass.back()[i]; t > 0)
        run.ops[i].p50 = run.ops[i].p95 = run.ops[i].best = t;
  }
  std::vector<double> e2e, e2e_kind, ops, ops_kind, ops_pass;
  std::map<std::string, std::vector<double>> by_kind;
  for (const auto& network : networks) {
    std::vector<std::string> inputs;
    const auto points = torch_training_points(kernels, timed, network, inputs);
    const FrameworkCostModel shaped(points);
    const FrameworkCostModel per_kind(points, {.shape_aware = false});
    for (std::size_t k = 0; k < timed.runs.size(); ++k) {
      const TorchRun& run = timed.runs[k];
      if (run.network != network) continue;
      const auto& trace = traces[k];
      std::vector<double> truth, pass_truth;
      for (std::size_t i = 0; i < run.ops.size(); ++i) {
        pass_truth.push_back(run.ops[i].best_or_p50());
        truth.push_back(fastest_each[k].empty() || !(fastest_each[k][i] > 0) ? pass_truth.back()
                                                                             : fastest_each[k][i]);
      }
      const RunPrediction a = predict_run(shaped, run, truth);
      const RunPrediction b = predict_run(per_kind, run, truth);
      const RunPrediction a_pass = predict_run(shaped, run, pass_truth);
      ops_pass.insert(ops_pass.end(), a_pass.op_errors.begin(), a_pass.op_errors.end());
      TorchModelRow row;
      row.model = run.model;
      row.network = run.network;
      row.threads = run.threads;
      row.measured = run.end_to_end();
      row.predicted = a.total;
      row.predicted_per_kind = b.total;
      row.op_error_p50 = summarize(a.op_errors).p50;
      row.op_error_p50_per_kind = summarize(b.op_errors).p50;
      row.ops_compared = static_cast<int>(a.op_errors.size());
      row.unmodelled_seconds = a.unmodelled;
      row.fit_inputs = inputs;
      row.seconds_by_kind = a.by_kind;
      row.op_truth = run.profiler_trace.empty() ? "fx nodes" : "profiler trace";
      row.library_paths = library_paths(trace, run);
      e2e.push_back(percent_error(row.predicted, row.measured));
      e2e_kind.push_back(percent_error(row.predicted_per_kind, row.measured));
      ops.insert(ops.end(), a.op_errors.begin(), a.op_errors.end());
      ops_kind.insert(ops_kind.end(), b.op_errors.begin(), b.op_errors.end());
      for (const auto& [kind, e] : a.op_errors_kinds)
        by_kind[kind].push_back(e);
      v.rows.push_back(std::move(row));
    }
  }
  v.end_to_end = summarize(e2e);
  v.end_to_end_per_kind = summarize(e2e_kind);
  v.op_errors = summarize(ops);
  v.op_errors_per_kind = summarize(ops_kind);
  v.op_errors_fastest_pass = summarize(ops_pass);
  v.trained = std::move(timed);
  for (const auto& [kind, errors] : by_kind)
    v.op_errors_by_kind[kind] = summarize(errors);
  return v;
}

std::string torch_validation_text(const TorchValidation& v) {
  std::string out = "PyTorch on this CPU, whole models, leave one network out (" + v.runs_file +
                    ", kernel grid " + v.kernels_file + ")\n";
  const auto env = [&](const char* key) {
    const auto it = v.environment.find(key);
    return it == v.environment.end() ? std::string("unknown") : it->second;
  };
  out += "  " + env("framework") + ", BLAS " + env("blas") + ", " + env("onednn") + "; " + env("cpu_model") +
         " at " + env("cpu_mhz") + " MHz; measured " + env("date") + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-12s %7s %11s %11s %8s %11s %8s %9s %9s\n", "model", "threads",
                "measured", "predicted", "error", "per-kind", "error", "op P50", "op P50 pk");
  out += line;
  for (const auto& r : v.rows) {
    std::snprintf(line, sizeof line,
                  "  %-12s %7d %9.1fms %9.1fms %+7.1f%% %9.1fms %+7.1f%% %8.1f%% %8.1f%%\n", r.model.c_str(),
                  r.threads, r.measured * 1e3, r.predicted * 1e3, percent_error(r.predicted, r.measured),
                  r.predicted_per_kind * 1e3, percent_error(r.predicted_per_kind, r.measured), r.op_error_p50,
                  r.op_error_p50_per_kind);
    out += line;
  }
  out += "  per-op truth and library paths (from each run's torch.profiler trace):\n";
  for (const auto& r : v.rows) {
    out += "    " + r.model + " at " + std::to_string(r.threads) + "t: " + r.op_truth;
    for (const auto& [path, count] : r.library_paths)
      out += ", " + path + " x" + std::to_string(count);
    out += "\n";
  }
  const auto worst = std::max_element(v.rows.begin(), v.rows.end(), [](const auto& x, const auto& y) {
    return std::fabs(percent_error(x.predicted, x.measured)) <
           std::fabs(percent_error(y.predicted, y.measured));
  });
  if (worst != v.rows.end()) {
    out += "  where the worst (" + worst->model + ", " + std::to_string(worst->threads) +
           " threads) goes, ms measured / predicted:";
    for (const auto& [kind, mp] : worst->seconds_by_kind) {
      std::snprintf(line, sizeof line, " %s %.1f/%.1f", kind.c_str(), mp.first * 1e3, mp.second * 1e3);
      out += line;
    }
    out += "\n";
  }
  std::snprintf(line, sizeof line,
                "  end to end: MAPE %.1f%%, worst %.1f%% (one rate per kind: MAPE %.1f%%, worst %.1f%%)\n"
                "  per op (%d held-out ops that do work, against each op's fastest of its passes): P50 "
                "%.1f%%, P95 %.1f%% (one "
                "rate per kind: P50 %.1f%%; against the run's fastest pass: P50 %.1f%%)\n",
                v.end_to_end.mape, v.end_to_end.max, v.end_to_end_per_kind.mape, v.end_to_end_per_kind.max,
                v.op_errors.count, v.op_errors.p50, v.op_errors.p95, v.op_errors_per_kind.p50,
                v.op_errors_fastest_pass.p50);
  out += line;
  for (const auto& [kind, s] : v.op_errors_by_kind) {
    std::snprintf(line, sizeof line, "    %-12s n=%-4d P50 %6.1f%%  P95 %6.1f%%  bias %+6.1f%%\n",
                  kind.c_str(), s.count, s.p50, s.p95, s.mean_signed);
    out += line;
  }
  return out;
}

} // namespace hs::validation
