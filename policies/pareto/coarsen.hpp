#pragma once
// Coarse partitioning before the fine search: ops joined by fusable chains or by tensors that cost more
// to move than to compute are merged into super-nodes, which the search places as one. Each super-node
// lists the devices that can run all of its ops, minus those that cannot hold its parameters and
// workspace and those dominated by another device: more than prune_slowdown times slower for the
// super-node, with no less busy energy and no more capacity (plain dominance on the super-node alone
// would be wrong, since a slower device still helps the makespan by running in parallel). Pruning is a
// heuristic: it keeps the fine search small, and the baselines seed it exactly, so nothing the baselines
// found is lost.
#include "policies/pareto/rewrite.hpp"

#include <vector>

namespace hs::pareto {

struct SuperNode {
  std::vector<OpId> ops;          // ascending
  std::vector<DeviceId> devices;  // allowed after pruning, fastest first
  std::vector<DeviceId> feasible; // before pruning
};

struct CoarsenOptions {
  // Merge producer and consumer when moving the tensor (mean route) takes longer than this multiple of
  // the shorter of their mean compute times.
  double coupling = 1.0;
  int max_ops = 16; // per super-node, and at most ops / (4 x devices) so small graphs keep their choices
  // Drop a device when another runs the super-node this many times faster, with no more busy energy and
  // no less capacity.
  double prune_slowdown = 4.0;
  bool allow_demotion = false;
};

struct Coarsening {
  std::vector<SuperNode> nodes;
  std::vector<int> node_of; // per op
};

// Throws InputError when some op has no device at all.
Coarsening coarsen(const CostModel& cost, const RewriteCandidates& c, const CoarsenOptions& o = {});

} // namespace hs::pareto
