#pragma once
// Predicting whole PyTorch models from a calibration that never saw them: for each network, fit the
// framework cost model (framework_cost_model.hpp) on the torch kernel grid plus the per-op measurements of
// the other networks only, predict every run of the held-out network (each op on the run's intra-op
// thread count, ops one after another as eager PyTorch runs them), and compare with the measured end-to-end
// time and with each op's own measured time. The baseline is the same fit with one rate per op kind.
#include "validation/error_stats.hpp"
#include "validation/measurement_set.hpp"
#include "validation/torch_runs.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

// The training points for a calibration that excludes `held_out_network`, and (in `inputs`) one line per
// source used: the kernel grid and each run of another network.
std::vector<KernelPoint> torch_training_points(const MeasurementSet& kernels, const TorchRunSet& runs,
                                               const std::string& held_out_network,
                                               std::vector<std::string>& inputs);

struct TorchModelRow {
  std::string model, network;
  int threads = 1;
  double measured = 0.0;                                  // seconds, end to end (P50)
  double predicted = 0.0;                                 // shape-aware model
  double predicted_per_kind = 0.0;                        // one rate per kind
  double op_error_p50 = 0.0, op_error_p50_per_kind = 0.0; // percent, median over the run's ops with work
  int ops_compared = 0;
  double unmodelled_seconds = 0.0; // measured time of ops whose kind had no training point
  std::vector<std::string> fit_inputs;
  std::map<std::string, std::pair<double, double>> seconds_by_kind; // kind -> (measured, predicted) sums
  // Where the per-op truth comes from: "profiler trace" (the run's torch.profiler trace, matched op by op)
  // or "fx nodes" (each traced node timed alone).
  std::string op_truth;
  // From the trace: how many ops of a kind took each library path ("conv2d via aten::mkldnn_convolution").
  std::map<std::string, int> library_paths;
};

struct TorchValidation {
  std::string kernels_file, runs_file;
  std::map<std::string, std::string> environment;
  std::vector<TorchModelRow> rows;
  ErrorStats end_to_end, end_to_end_per_kind;
  std::map<std::string, ErrorStats> op_errors_by_kind; // held-out ops pooled over every run
  ErrorStats op_errors, op_errors_per_kind; // against each held-out op's fastest of its trace's passes
  ErrorStats op_errors_fastest_pass;        // against its time in the run's fastest pass
  TorchRunSet trained;                      // the runs with the op times the model trains on
};

TorchValidation validate_torch(const MeasurementSet& kernels, const std::string& kernels_file,
                               const TorchRunSet& runs, const std::string& runs_file);

std::string torch_validation_text(const TorchValidation& v);

} // namespace hs::validation
