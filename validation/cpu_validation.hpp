#pragma once
// The CPU side of validation: calibrate on a training split of the kernel measurements and predict the
// held-out kernels through the cost model; execute whole graphs on threads and compare their makespans
// with SimGrid replays of the same plans on the calibrated thread platform.
#include "validation/error_stats.hpp"
#include "validation/measurement_set.hpp"
#include "validation/roofline_fit.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hs::validation {

// Kinds fitted as compute-bound at first (the others start memory-bound; see roofline_fit.hpp).
const std::vector<std::string>& cpu_compute_kinds();

// Held out of calibration: every third point of each kind, in measurement order (index % 3 == 1); with
// `residue` 0 or 2, the other two folds of a three-fold split.
bool cpu_point_held_out(int index_within_kind, int residue = 1);

// Cache sizes recorded in the measurement set (L2, L3), the bounds of the fitted memory tiers.
std::vector<double> cpu_tier_bounds(const MeasurementSet& m);

struct KernelRow {
  std::string kind, label;
  double measured = 0.0, nominal = 0.0, calibrated = 0.0; // seconds
};

struct CpuKernelValidation {
  RooflineFit fit;
  int train = 0, test = 0;
  std::map<std::string, ErrorStats> nominal, calibrated; // per kind, held-out points
  ErrorStats nominal_all, calibrated_all;
  std::vector<KernelRow> held_out;
};

// Calibration entry key "cpu" (device kind), so it applies to every thread device.
Calibration cpu_calibration(const RooflineFit& fit);
// Uses the points measured with `co_running` threads busy at once; throws InputError if there are none.
// `held_out_residue`: which fold is held out (cpu_point_held_out).
CpuKernelValidation validate_cpu_kernels(const MeasurementSet& m, int co_running = 1,
                                         int held_out_residue = 1);
// Thread counts present in the set (co_running values), ascending.
std::vector<int> co_running_counts(const MeasurementSet& m);

// Calibration per thread count; an execution on T threads uses fits[T] if present, else fits[1].
using FitsByThreads = std::map<int, RooflineFit>;
const RooflineFit& fit_for_threads(const FitsByThreads& fits, int threads);

struct ExecutionRecord {
  int ops = 0;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string policy;
  std::vector<std::vector<int>> queues; // per thread: op ids in execution order
  int repeats = 0;
  double p50 = 0.0, p95 = 0.0;
  // Per op, P50 over the timed runs (files of format version 1 hold the last run's instead): wall time
  // (diagnostics: kernel vs schedule error) and thread CPU time (the share of a core it got).
  std::vector<double> op_seconds;
  std::vector<double> op_cpu_seconds;
};

struct ExecutionSet {
  std::map<std::string, std::string> environment;
  std::vector<ExecutionRecord> records;
};

std::string execution_set_json(const ExecutionSet& s);
ExecutionSet load_execution_set(const std::string& path);

struct ExecutionPlanOptions {
  std::vector<int> threads = {1, 2};
  int graphs = 4; // seeds 1..graphs per thread count
  int ops = 24;
  int repeats = 5; // timed runs per round
  // Rounds over all graphs, each running every graph `repeats` times: the P50s are over every round's
  // runs, so a stretch of a neighbour's load on a shared machine lands on all graphs alike.
  int rounds = 5;
  std::string policy = "heft";
  std::function<void(const std::string&)> progress;
};

// Plans each graph with the calibrated cost model and runs it for real on threads (live timing).
ExecutionSet measure_executions(const MeasurementSet& m, const FitsByThreads& fits,
                                const ExecutionPlanOptions& o);

struct EndToEndRow {
  std::string graph;
  int threads = 0;
  double measured = 0.0, simgrid = 0.0, analytic = 0.0;
  double error = 0.0; // percent, SimGrid against measured
  // The executor's own time per op (its bookkeeping around each kernel: dependency checks, timestamps,
  // queue steps), from the one-thread runs of the other graphs (executor_overhead_per_op); it is each op's
  // launch overhead in the replay above. The replay without it, for reference.
  double executor_overhead = 0.0;
  double simgrid_without_executor = 0.0, error_without_executor = 0.0;
  // Busy time summed over ops: measured in the last run and predicted by the cost model. Their ratio
  // separates kernel-time error (ops slower in a graph than alone) from scheduling error.
  double measured_op_sum = 0.0, predicted_op_sum = 0.0;
  // Thread CPU time / wall time summed over ops (last run): the share of a core the ops got; 0 if not
  // recorded.
  double core_share = 0.0;
  // Measured makespan x core share: an estimate (not a measurement) of the makespan had the threads had
  // cores of their own; 0 when the core share was not recorded.
  double share_adjusted = 0.0;
  double share_adjusted_error = 0.0; // percent, SimGrid against share_adjusted
  // The same plan replayed by SimGrid with each op's measured P50 time instead of the cost model's: what
  // is left of the error is the executor's and the schedule's (run-to-run variation, waits, per-op costs
  // outside the ops' own timing), not the cost model's. 0 when the record has no per-op times.
  double measured_ops_replay = 0.0;
  double measured_ops_replay_error = 0.0; // percent, against measured
  // Per op: its kernel shape, its wall time in the last measured run, and what the cost model predicts
  // for it on the device the plan gave it; what tells a kernel-time error from a scheduling one.
  struct OpRow {
    std::string kernel;
    double measured = 0.0, predicted = 0.0;
  };
  std::vector<OpRow> ops;
};

struct EndToEndValidation {
  std::vector<EndToEndRow> rows;
  ErrorStats simgrid;
  ErrorStats simgrid_without_executor; // the replays without the executor's own time per op
  ErrorStats share_adjusted;           // diagnostic only, over rows with a recorded core share
  ErrorStats measured_ops_replay;      // diagnostic only, over rows with per-op times
};

// The executor's own time per op on one thread: what a run's makespan has beyond its ops' measured times
// (each op's P50 wall time, timed around its kernel alone), over its ops. By graph (seed), the mean over
// the one-thread runs of the other graphs, so no graph's own makespan sets what its replay adds; never
// negative.
std::map<std::uint64_t, double> executor_overhead_per_op(const ExecutionSet& s);

// The executor's time per op over every graph's one-thread runs (their mean): what a calibration written
// for `run` adds to its launch overhead.
struct ExecutorOverhead {
  double seconds_per_op = 0.0;
  int graphs = 0;
};
ExecutorOverhead executor_overhead_all_graphs(const ExecutionSet& s);

// Replays each recorded plan with SimGrid on the thread platform calibrated by `fit`, each op paying the
// executor's time per op (executor_overhead_per_op) beside its kernel.
EndToEndValidation predict_executions(const ExecutionSet& s, const MeasurementSet& m,
                                      const FitsByThreads& fits);

} // namespace hs::validation
