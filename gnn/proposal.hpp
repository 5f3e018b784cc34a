#pragma once
// A proposal is what the network says about a graph: a device per op and a priority adjustment per op. The
// plan around it comes from HEFT's list-scheduling pass with the devices fixed (policies/heft.hpp), so the
// order honours dependencies and every op's device is one the cost model allows. No libtorch here.
#include "sim/plan.hpp"

#include <string>
#include <vector>

namespace hs::gnn {

struct Proposal {
  std::vector<DeviceId> device; // per op
  std::vector<double> priority; // per op, in (-1, 1): the op's weight in the upward rank is scaled by exp()
  // per op, the network's softmax over the devices (filled by propose(), from the same forward pass)
  std::vector<std::vector<double>> probability{};
};

// Upward ranks (HEFT's rank_u) with each op's mean time scaled by exp(priority[op]): positive weights keep
// producers ranked above their consumers, so the order stays topological whatever the network says.
std::vector<double> adjusted_upward_ranks(const CostModel& cost, const std::vector<double>& priority);

// The list schedule of `p`: ops by adjusted rank, each on its proposed device (the earliest-finish device
// where the proposed one is infeasible), contention-aware. `refine` adds HEFT's refinement (streams dealt,
// never worse than the best single device in the evaluator).
Plan plan_for_proposal(const CostModel& cost, const Proposal& p, std::string policy, bool refine);

// The same order, but each op's device is the earliest-finishing of its shortlist: the network narrows the
// choice and the list scheduler makes it.
Plan plan_for_shortlist(const CostModel& cost, const Proposal& p, int k, std::string policy, bool refine);

// Op `op`'s shortlist, per device: its feasible devices whose probability is among the `k` highest distinct
// values, so devices the network cannot tell apart (identical figures, equal probabilities) count as one.
// With distinct probabilities and k = 1 it is the most probable device alone.
std::vector<bool> shortlisted_devices(const CostModel& cost, OpId op, const std::vector<double>& probability,
                                      int k);

// The network's proposal for `cost`'s graph and platform from the checkpoint at `path` (loaded once per path
// and kept). Throws hs::InputError for a bad checkpoint, std::runtime_error when built without libtorch.
Proposal propose(const CostModel& cost, const std::string& path);

// The network's softmax over each op's devices (infeasible ones at 0): the learned proposal prior of the
// Pareto search (gnn/gnn_prior.cpp). Same errors as propose().
std::vector<std::vector<double>> device_probabilities(const CostModel& cost, const std::string& path);

// The shipped checkpoint in the data directory (sim/data_directory.hpp): models/gnn-placement.pt.
std::string shipped_checkpoint_path();

} // namespace hs::gnn
