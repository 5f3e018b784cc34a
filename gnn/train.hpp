#pragma once
// Cross-entropy-method training (Rubinstein 1999; as a policy-search method, Mannor et al. ICML 2003) against
// the contention-aware evaluator: per graph and platform, sample placements and priority adjustments from
// the network, score each plan's makespan (sim/contention_engine.hpp), and fit the network to the elite
// samples plus the best plan seen so far for that instance (seeded with HEFT's). libtorch.
#include "gnn/model.hpp"

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

// Trains `net` in place (a fresh one when null: made from the options' shape and seed); one entry per
// iteration. Deterministic for the options.
std::vector<TrainIteration> train(const TrainOptions& options, PlacementNet& net);

} // namespace hs::gnn
