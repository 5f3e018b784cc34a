#pragma once
// Whole models run for real through PyTorch (validation/torch/measure_torch.py models): per run, the
// end-to-end time and every traced node's own time, described as HeteroSim ops. The JSON schema is
// "heterosim-torch-runs", version 1.
#include "validation/measurement_set.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct TorchRun {
  std::string model;   // resnet18, resnet50, resnet50-b8, bert-base
  std::string network; // the network it runs (resnet50 and resnet50-b8 share one)
  int batch = 1, sequence = 0, threads = 1;
  int repeats = 0;
  double end_to_end_p50 = 0.0, end_to_end_p95 = 0.0; // seconds
  double end_to_end_best = 0.0;                      // the fastest run, when recorded (0 otherwise)
  double end_to_end() const { return end_to_end_best > 0 ? end_to_end_best : end_to_end_p50; }
  // One per traced node, in execution order; `label` holds the node name, `shape` has a `threads` entry.
  std::vector<KernelPoint> ops;
  // A torch.profiler Chrome trace of one more run, or empty; the file names it relative to its own folder.
  std::string profiler_trace;
};

struct TorchRunSet {
  std::map<std::string, std::string> environment;
  std::vector<TorchRun> runs;
};

// Throws InputError naming the file and the place for anything malformed.
TorchRunSet load_torch_runs(const std::string& path);

// The intra-op thread count a point was measured at: its `threads` dimension, 1 when absent.
int point_threads(const KernelPoint& p);

} // namespace hs::validation
