#include "validation/torch_validation.hpp"

#include "validation/framework_cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace hs::validation {

namespace {

double median_abs(std::vector<double> signed_errors) {
  for (double& e : signed_errors)
    e = std::fabs(e);
  return signed_errors.empty() ? 0.0 : percentile(signed_errors, 0.5);
}

struct RunPrediction {
  double total = 0.0, unmodelled = 0.0;
  std::vector<double> op_errors;                               // percent, ops that do work
  std::vector<std::pair<std::string, double>> op_errors_kinds; // (kind, percent)
  std::map<std::string, std::pair<double, double>> by_kind;    // kind -> (measured, predicted)
};

RunPrediction predict_run(const FrameworkCostModel& model, const TorchRun& run) {
  RunPrediction r;
  for (const auto& op : run.ops) {
    if (!model.knows(op.kind)) {
      r.unmodelled += op.p50;
      continue;
    }
    const double t = model.predict(op, run.threads);
    r.total += t;
    r.by_kind[op.kind].first += op.p50;
    r.by_kind[op.kind].second += t;
    if (op.flops > 0 || op.bytes > 0) {
      r.op_errors.push_back(percent_error(t, op.p50));
      r.op_errors_kinds.emplace_back(op.kind, r.op_errors.back());
    }
  }
  return r;
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
  std::vector<double> e2e, e2e_kind, ops, ops_kind;
  std::map<std::string, std::vector<double>> by_kind;
  for (const auto& network : networks) {
    std::vector<std::string> inputs;
    const auto points = torch_training_points(kernels, runs, network, inputs);
    const FrameworkCostModel shaped(points);
    const FrameworkCostModel per_kind(points, {.shape_aware = false});
    for (const auto& run : runs.runs) {
      if (run.network != network) continue;
      const RunPrediction a = predict_run(shaped, run);
      const RunPrediction b = predict_run(per_kind, run);
      TorchModelRow row{run.model,
                        run.network,
                        run.threads,
                        run.end_to_end_p50,
                        a.total,
                        b.total,
                        median_abs(a.op_errors),
                        median_abs(b.op_errors),
                        static_cast<int>(a.op_errors.size()),
                        a.unmodelled,
                        inputs,
                        a.by_kind};
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
  char line[320];
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
  std::snprintf(
      line, sizeof line,
      "  end to end: MAPE %.1f%%, worst %.1f%% (one rate per kind: MAPE %.1f%%, worst %.1f%%)\n"
      "  per op (%d held-out ops that do work): P50 %.1f%%, P95 %.1f%% (one rate per kind: P50 %.1f%%)\n",
      v.end_to_end.mape, v.end_to_end.max, v.end_to_end_per_kind.mape, v.end_to_end_per_kind.max,
      v.op_errors.count, v.op_errors.p50, v.op_errors.p95, v.op_errors_per_kind.p50);
  out += line;
  for (const auto& [kind, s] : v.op_errors_by_kind) {
    std::snprintf(line, sizeof line, "    %-12s n=%-4d P50 %6.1f%%  P95 %6.1f%%  bias %+6.1f%%\n",
                  kind.c_str(), s.count, s.p50, s.p95, s.mean_signed);
    out += line;
  }
  return out;
}

} // namespace hs::validation
