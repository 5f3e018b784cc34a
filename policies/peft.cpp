// PEFT: Predict Earliest Finish Time (Arabnejad and Barbosa, "List scheduling algorithm for heterogeneous
// systems by an optimistic cost table", IEEE TPDS 25(3), 2014). The optimistic cost table
//   OCT(i, p) = max over successors j of min over devices q of [OCT(j, q) + w(j, q) + (q != p ? c-bar(i, j) :
//   0)]
// looks one whole path ahead; ops are taken from the ready list by decreasing rank_oct (the mean of their
// OCT row), and each goes to the device minimising O_EFT = EFT + OCT, which may not be the device where it
// finishes first if that device makes its descendants slower.
#include "policies/heft.hpp"
#include "policies/policy.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hs {

namespace {

template <bool Contention> struct Peft {
  std::string name() const { return Contention ? "peft" : "peft-classic"; }
  std::string description() const {
    return Contention
               ? "PEFT, contention-aware: O_EFT with transfers booked on links and copy engines (Arabnejad "
                 "& Barbosa, TPDS 2014; Sinnen & Sousa, TPDS 2005)"
               : "PEFT as published: optimistic cost table look-ahead, rank_oct order, O_EFT = EFT + OCT, "
                 "contention-free transfers (Arabnejad & Barbosa, TPDS 2014)";
  }

  Plan plan(const PolicyContext& ctx) const {
    const CostModel& cost = ctx.cost;
    const Graph& g = ctx.graph();
    const auto oct = optimistic_cost_table(cost);
    const int devices = ctx.platform().device_count();
    std::vector<double> rank(static_cast<std::size_t>(g.op_count()), 0.0);
    for (OpId o = 0; o < g.op_count(); ++o) {
      double sum = 0;
      int n = 0;
      for (DeviceId d = 0; d < devices; ++d)
        if (cost.feasible(o, d)) {
          sum += oct[idx(o, d, devices)];
          ++n;
        }
      rank[static_cast<std::size_t>(o)] = n ? sum / n : 0.0;
    }
    const auto order = ready_list_order(g, rank);
    if (ctx.observer)
      ctx.observer->ranks(
          {"rank_oct",
           "OCT(i, p) = max over successors j of min over devices q of (OCT(j, q) + w(j, q) + "
           "(c-bar(i, j) if q != p)); rank_oct(i) = mean of OCT(i, p) over the devices that run i",
           "ready list: the ready op of highest rank_oct first; equal ranks in topological order",
           "lowest O_EFT = EFT + OCT", "O_EFT"},
          rank, order, oct);
    const auto s = schedule_in_order(
        order, cost, Contention,
        [&](OpId o, DeviceId d, double eft) { return eft + oct[idx(o, d, devices)]; }, ctx.observer);
    Plan plan = plan_from_assignment(g, ctx.platform(), s.device, s.start, name());
    return Contention ? refine_list_plan(std::move(plan), cost, ctx.observer) : plan;
  }

  static std::size_t idx(OpId o, DeviceId d, int devices) {
    return static_cast<std::size_t>(o) * static_cast<std::size_t>(devices) + static_cast<std::size_t>(d);
  }

  static std::vector<double> optimistic_cost_table(const CostModel& cost) {
    const Graph& g = cost.graph();
    const int devices = cost.platform().device_count();
    std::vector<double> oct(static_cast<std::size_t>(g.op_count()) * static_cast<std::size_t>(devices), 0.0);
    const auto& topo = g.topological_order();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      const OpId i = *it;
      std::map<OpId, double> cbar; // mean cost of everything i sends to each successor
      for (TensorId t : g.op(i).outputs)
        for (OpId c : g.tensor(t).consumers)
          cbar[c] += cost.mean_transfer_time(t);
      for (DeviceId p = 0; p < devices; ++p) {
        double worst = 0.0;
        for (const auto& [j, c] : cbar) {
          double best = kInfeasible;
          for (DeviceId q = 0; q < devices; ++q)
            if (cost.feasible(j, q))
              best = std::min(best, oct[idx(j, q, devices)] + cost.op_time(j, q) + (q != p ? c : 0.0));
          if (best < kInfeasible) worst = std::max(worst, best);
        }
        oct[idx(i, p, devices)] = worst;
      }
    }
    return oct;
  }

  // The ready list of the paper: repeatedly the ready op of highest rank (ties by topological position).
  static std::vector<OpId> ready_list_order(const Graph& g, const std::vector<double>& rank) {
    std::vector<int> preds_left(static_cast<std::size_t>(g.op_count()));
    std::set<std::tuple<double, int, OpId>> ready;
    for (OpId o = 0; o < g.op_count(); ++o) {
      preds_left[static_cast<std::size_t>(o)] = static_cast<int>(g.predecessors(o).size());
      if (preds_left[static_cast<std::size_t>(o)] == 0)
        ready.insert({-rank[static_cast<std::size_t>(o)], g.topological_position(o), o});
    }
    std::vector<OpId> order;
    while (!ready.empty()) {
      const OpId o = std::get<2>(*ready.begin());
      ready.erase(ready.begin());
      order.push_back(o);
      for (OpId s : g.successors(o))
        if (--preds_left[static_cast<std::size_t>(s)] == 0)
          ready.insert({-rank[static_cast<std::size_t>(s)], g.topological_position(s), s});
    }
    return order;
  }
};

using PeftContention = Peft<true>;
using PeftClassic = Peft<false>;

} // namespace

HS_REGISTER_POLICY(PeftContention)
HS_REGISTER_POLICY(PeftClassic)

} // namespace hs
