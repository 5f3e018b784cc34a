#include "validation/torch_calibration.hpp"

#include "validation/framework_cost_model.hpp"

#include <cmath>
#include <filesystem>

namespace hs::validation {

namespace {

std::string env_or(const TorchValidation& v, const std::string& key) {
  const auto it = v.environment.find(key);
  return it == v.environment.end() ? std::string("unknown") : it->second;
}

// Mean absolute end-to-end error of the leave-one-network-out rows at `threads`; -1 when none.
double held_out_mape(const TorchValidation& v, int threads) {
  double sum = 0.0;
  int n = 0;
  for (const auto& r : v.rows)
    if (r.threads == threads) {
      sum += std::fabs(percent_error(r.predicted, r.measured));
      ++n;
    }
  return n ? sum / n : -1.0;
}

} // namespace

FrameworkModel torch_framework_model(const MeasurementSet& kernels, const TorchRunSet& timed_runs) {
  std::vector<std::string> inputs;
  const auto points = torch_training_points(kernels, timed_runs, "", inputs);
  FrameworkModel m = FrameworkCostModel(points).model();
  m.source.clear();
  for (const auto& i : inputs)
    m.source.append(m.source.empty() ? "" : "; ").append(i);
  // The workload builders' names for the framework's kinds (workloads/layers.cpp).
  m.kind_aliases = {{"attention", "gemm"}, {"pooling", "pool"}};
  // A workload's ops run inside a model, as the runs' ops did (torch_runs.cpp sets in_graph = 1).
  m.graph_dimensions = {{"in_graph", 1.0}};
  return m;
}

std::map<std::string, std::string> torch_calibration_files(const MeasurementSet& kernels,
                                                           const TorchValidation& v,
                                                           const std::string& model_file) {
  const FrameworkModel model = torch_framework_model(kernels, v.trained);
  std::map<std::string, std::string> files;
  files[model_file] = model.to_json().dump(1) + "\n";
  const std::string stack = env_or(v, "framework") + " (BLAS " + env_or(v, "blas") + ", " +
                            env_or(v, "onednn") + ") on " + env_or(v, "cpu_model") + " at " +
                            env_or(v, "cpu_mhz") + " MHz";
  for (int n : model.thread_counts()) {
    nlohmann::ordered_json entry;
    entry["name"] = env_or(v, "framework") + ", " + std::to_string(n) + " intra-op thread(s)";
    entry["applies_to"] = {{"kinds", {"cpu"}}};
    entry["measured"] = "ops through " + stack + ", measured " + env_or(v, "date") + ": " + model.source;
    if (const double e = held_out_mape(v, n); e >= 0)
      entry["held_out_mape_percent"] = std::round(e * 10) / 10;
    entry["framework_model"] = model_file;
    entry["intra_op_threads"] = n;
    entry["notes"] = "held_out_mape_percent: end-to-end error of the whole models at this thread count, each "
                     "predicted from a fit that excluded its network (heterosim validate)";
    nlohmann::ordered_json c;
    c["format"] = "heterosim-calibration";
    c["version"] = 2;
    // File names only, so the committed calibration regenerates wherever the sets are read from.
    c["source"] = "heterosim validate on " + std::filesystem::path(v.kernels_file).filename().string() +
                  " and " + std::filesystem::path(v.runs_file).filename().string() + " (torch sets)";
    c["entries"] =
        nlohmann::ordered_json::array({entry}); // not `= {entry}`: clang reads that as a copy of entry
    files["calibration-torch-" + std::to_string(n) + "t.json"] = c.dump(1) + "\n";
  }
  return files;
}

} // namespace hs::validation
