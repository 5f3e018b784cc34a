#pragma once
// Cross-entropy-method training (Rubinstein 1999; as a policy-search method, Mannor et al. ICML 2003) against
// the contention-aware evaluator: per graph and platform, sample placements and priority adjustments from
// the network, score each plan's makespan (sim/contention_engine.hpp), and fit the network to the elite
// samples plus the best plan seen so far for that instance (seeded with HEFT's). libtorch.
#include "gnn/model.hpp"
#include "gnn/train_options.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hs::gnn {

// Trains `net` in place (a fresh one when null: made from the options' shape and seed); one entry per
// iteration. Deterministic for the options.
std::vector<TrainIteration> train(const TrainOptions& options, PlacementNet& net);

} // namespace hs::gnn
