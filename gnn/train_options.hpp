#pragma once
// The training's options and record, and the one entry point that trains and writes a checkpoint, without
// libtorch in the header: `heterosim train-gnn` (cli/train_gnn_command.cpp) and hs_train_gnn include only
// this. Defined in gnn/train.cpp, so only a build with libtorch has them.
#include <cstdint>
#include <string>
#include <vector>

namespace hs::gnn {

struct TrainOptions {
  std::vector<std::string> workloads; // builder specs or files (workloads/workload_registry.hpp)
  std::vector<std::string> platforms; // presets or files
  int iterations = 100;
  int samples = 16; // per instance and iteration
  double elite_fraction = 0.25;
  double priority_sigma = 0.3; // spread of the sampled priority adjustments
  double learning_rate = 0.01;
  int hidden = 32;
  int layers = 3;
  std::uint64_t seed = 1;
};

struct TrainIteration {
  double loss = 0.0;       // the fitted cross-entropy plus priority error, before the step
  double mean_ratio = 0.0; // sampled makespan over HEFT's, mean over instances and samples
  double best_ratio = 0.0; // best plan so far over HEFT's, mean over instances
};

// Trains a fresh network (gnn/train.hpp), writes the checkpoint at `out` with `command` inside it and in
// `<out>.command`, and returns the history. Throws hs::InputError for a bad workload, platform or path.
std::vector<TrainIteration> train_to_file(const TrainOptions& options, const std::string& out,
                                          const std::string& command);

// The history as CSV: iteration,loss,mean_sampled_over_heft,best_over_heft.
std::string training_csv(const std::vector<TrainIteration>& history);

} // namespace hs::gnn
