#pragma once
// What the placement GNN sees of a graph on a platform (docs/gnn.md). Plain vectors, no libtorch, so that
// the feature code compiles without it and its dimensions can be named in a checkpoint's header.
#include "sim/cost_model.hpp"

#include <vector>

namespace hs::gnn {

// Per op: log FLOPs, log bytes moved, log parameter and workspace bytes, precision one-hot, kind one-hot over
// sim/op_kinds (plus "other"), pinned flag, log in/out degree, topological position, log mean op time
// relative to the graph's mean.
int op_feature_count();
// Per (op, device): log of the op's time there over its best time, feasible flag, fastest flag, op time
// over the graph's mean op time (log), device kind one-hot (cpu, gpu, other), log memory capacity over the
// graph's total resident bytes. The platform enters only here, so the model is platform-conditioned.
int pair_feature_count();
// Per edge (producer -> consumer over a tensor): log(1 + mean transfer time / mean op time).
int edge_feature_count();

struct GraphFeatures {
  int ops = 0;
  int devices = 0;
  std::vector<float> op;         // ops x op_feature_count()
  std::vector<float> pair;       // ops x devices x pair_feature_count()
  std::vector<unsigned char> ok; // ops x devices: the cost model's feasibility
  std::vector<long> edge_src;    // producer op per edge
  std::vector<long> edge_dst;    // consumer op per edge
  std::vector<float> edge;       // edges x edge_feature_count()
  std::vector<float> in_degree;  // per op, at least 1 (the mean's divisor)
  std::vector<float> out_degree; // per op, at least 1
};

GraphFeatures graph_features(const CostModel& cost);

} // namespace hs::gnn
