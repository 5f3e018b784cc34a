#include "gnn/proposal.hpp"

#include "policies/heft.hpp"
#include "sim/data_directory.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace hs::gnn {

std::vector<double> adjusted_upward_ranks(const CostModel& cost, const std::vector<double>& priority) {
  const Graph& g = cost.graph();
  std::vector<double> rank(static_cast<std::size_t>(g.op_count()), 0.0);
  const auto& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const OpId i = *it;
    double tail = 0.0;
    for (TensorId t : g.op(i).outputs) {
      const double c = cost.mean_transfer_time(t);
      for (OpId j : g.tensor(t).consumers)
        tail = std::max(tail, c + rank[static_cast<std::size_t>(j)]);
    }
    const double scale = std::exp(priority.empty() ? 0.0 : priority[static_cast<std::size_t>(i)]);
    rank[static_cast<std::size_t>(i)] = cost.mean_op_time(i) * scale + tail;
  }
  return rank;
}

namespace {

// The list schedule in the proposal's adjusted rank order, where `allowed(op, device)` says which devices
// compete by earliest finish (the rest only where none of them is feasible), then HEFT's refinement.
template <class Allowed>
Plan list_plan(const CostModel& cost, const Proposal& p, Allowed allowed, std::string policy, bool refine) {
  const auto order = order_by_decreasing(cost.graph(), adjusted_upward_ranks(cost, p.priority));
  const double never = std::numeric_limits<double>::max() / 4;
  const auto s = schedule_in_order(
      order, cost, true, [&](OpId op, DeviceId d, double eft) { return allowed(op, d) ? eft : never + eft; });
  Plan plan = plan_from_assignment(cost.graph(), cost.platform(), s.device, s.start, std::move(policy));
  return refine ? refine_list_plan(std::move(plan), cost, nullptr) : plan;
}

} // namespace

Plan plan_for_proposal(const CostModel& cost, const Proposal& p, std::string policy, bool refine) {
  // The proposed device wins outright; the others only compete where it is infeasible.
  return list_plan(
      cost, p,
      [&](OpId op, DeviceId d) {
        const DeviceId want = p.device[static_cast<std::size_t>(op)];
        return d == want || !cost.feasible(op, want);
      },
      std::move(policy), refine);
}

Plan plan_for_shortlist(const CostModel& cost, const Proposal& p, int k, std::string policy, bool refine) {
  const Graph& g = cost.graph();
  std::vector<std::vector<bool>> listed(static_cast<std::size_t>(g.op_count()));
  std::vector<bool> any(static_cast<std::size_t>(g.op_count()));
  for (OpId op = 0; op < g.op_count(); ++op) {
    const auto o = static_cast<std::size_t>(op);
    listed[o] = shortlisted_devices(cost, op, p.probability.at(o), k);
    any[o] = std::find(listed[o].begin(), listed[o].end(), true) != listed[o].end();
  }
  return list_plan(
      cost, p,
      [&](OpId op, DeviceId d) {
        const auto o = static_cast<std::size_t>(op);
        return !any[o] || listed[o][static_cast<std::size_t>(d)];
      },
      std::move(policy), refine);
}

std::vector<bool> shortlisted_devices(const CostModel& cost, OpId op, const std::vector<double>& probability,
                                      int k) {
  // Devices the network cannot tell apart (the same figures, so bit-equal probabilities) are one choice:
  // taking the first of eight identical GPUs would be the lowest id's doing, not the network's.
  std::vector<double> distinct;
  for (std::size_t d = 0; d < probability.size(); ++d)
    if (cost.feasible(op, static_cast<DeviceId>(d)) && probability[d] > 0) distinct.push_back(probability[d]);
  std::sort(distinct.begin(), distinct.end(), std::greater<>());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<bool> listed(probability.size(), false);
  if (distinct.empty()) return listed;
  const double floor = distinct[std::min(distinct.size(), static_cast<std::size_t>(k)) - 1];
  for (std::size_t d = 0; d < probability.size(); ++d)
    listed[d] = cost.feasible(op, static_cast<DeviceId>(d)) && probability[d] > 0 && probability[d] >= floor;
  return listed;
}

std::string shipped_checkpoint_path() {
  return data_directory() + "/models/gnn-placement.pt";
}

} // namespace hs::gnn
