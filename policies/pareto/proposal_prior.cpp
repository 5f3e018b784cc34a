#include "policies/pareto/proposal_prior.hpp"

#include <cmath>
#include <stdexcept>

namespace hs::pareto {

Registry<ProposalPrior>& proposal_prior_registry() {
  static Registry<ProposalPrior> r("proposal prior");
  return r;
}

void check_probabilities(const CostModel& cost, const OpDeviceProbabilities& p, const std::string& prior) {
  const auto ops = static_cast<std::size_t>(cost.graph().op_count());
  const auto devs = static_cast<std::size_t>(cost.platform().device_count());
  const std::string who = "proposal prior '" + prior + "'";
  if (p.size() != ops)
    throw std::logic_error(who + " gave " + std::to_string(p.size()) + " rows for " + std::to_string(ops) +
                           " ops");
  for (std::size_t o = 0; o < ops; ++o) {
    if (p[o].size() != devs)
      throw std::logic_error(who + ": op " + std::to_string(o) + " has a wrong row size");
    double sum = 0;
    for (std::size_t d = 0; d < devs; ++d) {
      const bool ok =
          p[o][d] >= 0 && (p[o][d] == 0 || cost.feasible(static_cast<OpId>(o), static_cast<DeviceId>(d)));
      if (!ok)
        throw std::logic_error(who + ": op " + std::to_string(o) + " has mass on an infeasible device");
      sum += p[o][d];
    }
    if (std::abs(sum - 1.0) > 1e-6)
      throw std::logic_error(who + ": op " + std::to_string(o) + "'s probabilities sum to " +
                             std::to_string(sum));
  }
}

namespace {

// The cost model alone: each op's devices in proportion to 1 / time^2, so the fast devices are favoured
// and the slower ones keep some mass (they shorten the makespan by running in parallel). The ablation
// against which the learned prior's own contribution is measured (results/prior_search/).
OpDeviceProbabilities speed_probabilities(const CostModel& cost) {
  const auto ops = static_cast<std::size_t>(cost.graph().op_count());
  const auto devs = static_cast<std::size_t>(cost.platform().device_count());
  OpDeviceProbabilities p(ops, std::vector<double>(devs, 0.0));
  for (std::size_t o = 0; o < ops; ++o) {
    double best = kInfeasible;
    for (std::size_t d = 0; d < devs; ++d)
      best = std::min(best, cost.op_time(static_cast<OpId>(o), static_cast<DeviceId>(d)));
    double sum = 0;
    for (std::size_t d = 0; d < devs; ++d) {
      const double t = cost.op_time(static_cast<OpId>(o), static_cast<DeviceId>(d));
      if (t >= kInfeasible) continue;
      const double r = best > 0 ? t / best : 1.0; // zero-time ops: every feasible device alike
      p[o][d] = 1.0 / (r * r);
      sum += p[o][d];
    }
    for (double& v : p[o])
      v = sum > 0 ? v / sum : 0.0;
  }
  return p;
}

} // namespace

HS_REGISTER_PROPOSAL_PRIOR(speed, {"speed", "the cost model's op times: devices in proportion to 1 / time^2",
                                   speed_probabilities})

} // namespace hs::pareto
