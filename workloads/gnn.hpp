#pragma once
// Graph neural networks, full-batch: GCN (Kipf & Welling, ICLR 2017) and GraphSAGE with the mean
// aggregator (Hamilton et al., NeurIPS 2017), on a graph of `nodes` nodes and `edges` directed edges.
#include "sim/graph.hpp"
#include "workloads/layers.hpp"

#include <string>

namespace hs {

struct GnnOptions {
  std::string variant = "gcn"; // gcn | graphsage
  // Defaults: the Cora citation graph as used by Kipf & Welling (2708 nodes, 10556 directed edges,
  // 1433 features, 7 classes, hidden 16, two layers).
  long long nodes = 2708;
  long long edges = 10556;
  long long features = 1433;
  long long hidden = 16;
  long long classes = 7;
  long long layers = 2;
  layers::ModelOptions model;
};

Graph gnn(const GnnOptions& o);

} // namespace hs
