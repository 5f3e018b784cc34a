// HEFT: Heterogeneous Earliest Finish Time (Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002).
// Ops are taken by decreasing upward rank, computed on mean execution and communication costs, and each
// goes to the device where it finishes earliest, filling idle gaps (insertion-based policy).
#include "policies/heft.hpp"

#include "policies/input_arrival.hpp"
#include "policies/policy.hpp"
#include "policies/single_device.hpp"
#include "policies/stream_spread.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace hs {

std::vector<double> upward_ranks(const CostModel& cost) {
  const Graph& g = cost.graph();
  std::vector<double> rank(static_cast<std::size_t>(g.op_count()), 0.0);
  const auto& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const OpId o = *it;
    // c-bar per successor: the mean cost of every tensor this op sends it.
    std::map<OpId, double> edge;
    for (TensorId t : g.op(o).outputs)
      for (OpId c : g.tensor(t).consumers)
        edge[c] += cost.mean_transfer_time(t);
    double tail = 0.0;
    for (const auto& [succ, c] : edge)
      tail = std::max(tail, c + rank[static_cast<std::size_t>(succ)]);
    rank[static_cast<std::size_t>(o)] = cost.mean_op_time(o) + tail;
  }
  return rank;
}

namespace {

// No device could take `o`: say why for each one.
[[noreturn]] void throw_no_device(OpId o, const CostModel& cost, const std::vector<DeviceId>& placed_on) {
  const Graph& g = cost.graph();
  const Platform& p = cost.platform();
  std::string why;
  for (DeviceId d = 0; d < p.device_count(); ++d) {
    const std::string r = cost.infeasibility_reason(o, d);
    if (!r.empty()) {
      why += "; " + r;
      continue;
    }
    // The op could run there: one of its inputs has no way to the device.
    for (TensorId t : g.op(o).inputs) {
      const DeviceId from = placed_on[static_cast<std::size_t>(g.tensor(t).producer)];
      if (cost.transfer_time(t, from, d) == kInfeasible)
        why += "; input '" + g.tensor(t).name + "' cannot move from '" +
               p.devices[static_cast<std::size_t>(from)].name + "' to '" +
               p.devices[static_cast<std::size_t>(d)].name + "' (no route)";
    }
  }
  throw PlanError("no device can run op '" + g.op(o).name + "'" + why);
}

} // namespace

ListSchedule schedule_in_order(const std::vector<OpId>& order, const CostModel& cost, bool contention,
                               const std::function<double(OpId, DeviceId, double eft)>& score,
                               ScheduleObserver* observer) {
  const Platform& p = cost.platform();
  const auto n = static_cast<std::size_t>(cost.graph().op_count());
  ListSchedule s;
  s.device.assign(n, -1);
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  Timetable table(p.device_count());
  InputArrival inputs(cost, contention);
  if (observer)
    observer->list_schedule(contention, "a device must score strictly lower to displace one found earlier, "
                                        "so the first tied device in platform order wins");
  for (OpId o : order) {
    DeviceId best = -1;
    double best_score = kInfeasible, best_start = 0, best_finish = 0;
    for (DeviceId d = 0; d < p.device_count(); ++d) {
      const double w = cost.op_time(o, d);
      const double ready = w == kInfeasible ? kInfeasible : inputs.ready_time(o, d, s.device, s.finish);
      if (ready == kInfeasible) {
        if (observer)
          observer->excluded(o, d,
                             w == kInfeasible ? cost.infeasibility_reason(o, d)
                                              : "an input cannot reach this device (no route)");
        continue;
      }
      const double start = table.earliest_start(d, ready, w);
      const double sc = score(o, d, start + w);
      if (observer) observer->candidate(o, d, ready, start, start + w, sc);
      if (sc < best_score) {
        best = d;
        best_score = sc;
        best_start = start;
        best_finish = start + w;
      }
    }
    if (best < 0) throw_no_device(o, cost, s.device);
    const auto oi = static_cast<std::size_t>(o);
    inputs.commit(o, best, s.device, s.finish);
    s.device[oi] = best;
    s.start[oi] = best_start;
    s.finish[oi] = best_finish;
    table.reserve(best, best_start, best_finish);
    if (observer) observer->chosen(o, best, best_start, best_finish);
  }
  return s;
}

Plan refine_list_plan(Plan plan, const CostModel& cost, ScheduleObserver* observer, bool respect_capacity) {
  if (!observer)
    return no_worse_than_single_device(spread_over_streams(std::move(plan), cost, respect_capacity), cost,
                                       respect_capacity);
  const auto listed_device = plan.device;
  const auto listed_stream = plan.stream;
  Plan spread = spread_over_streams(std::move(plan), cost, respect_capacity);
  const bool dealt = spread.stream != listed_stream;
  observer->note(dealt ? "each device's queue was dealt over its streams: the contention-aware evaluator "
                         "says that finishes sooner (devices unchanged, start times move)"
                       : "each device runs its queue in list order on one stream (dealing it over several "
                         "streams would not finish sooner, or the devices have one stream)");
  Plan final_plan = no_worse_than_single_device(std::move(spread), cost, respect_capacity);
  if (final_plan.device != listed_device)
    observer->note("the list schedule was replaced by the whole graph on its fastest single device: the "
                   "contention-aware evaluator says that finishes sooner; the decisions shown are the list "
                   "schedule's, not the plan's");
  else
    observer->note(respect_capacity ? "the plan is kept over the fastest single device: the contention-aware "
                                      "evaluator says that finishes no sooner, or it would not fit in memory"
                                    : "the plan is kept over the fastest single device: the contention-aware "
                                      "evaluator says that finishes no sooner");
  return final_plan;
}

ListRules upward_rank_rules(std::string choice_rule) {
  return {"upward rank", "rank_u(i) = w-bar(i) + max over successors j of (c-bar(i, j) + rank_u(j))",
          "decreasing upward rank; ranks equal to 1e-12 relative in topological order",
          std::move(choice_rule), "EFT"};
}

Plan heft_plan(const CostModel& cost, bool contention, std::string policy, ScheduleObserver* observer) {
  const auto rank = upward_ranks(cost);
  const auto order = order_by_decreasing(cost.graph(), rank);
  if (observer) observer->ranks(upward_rank_rules("earliest finish time"), rank, order, {});
  const auto s = schedule_in_order(
      order, cost, contention, [](OpId, DeviceId, double eft) { return eft; }, observer);
  Plan plan = plan_from_assignment(cost.graph(), cost.platform(), s.device, s.start, std::move(policy));
  return contention ? refine_list_plan(std::move(plan), cost, observer) : plan;
}

namespace {

template <bool Contention> struct Heft {
  std::string name() const { return Contention ? "heft" : "heft-classic"; }
  std::string description() const {
    return Contention ? "HEFT, contention-aware: transfers booked on links and copy engines when computing "
                        "data-ready times (Sinnen & Sousa, TPDS 2005)"
                      : "HEFT as published: upward rank on mean costs, insertion-based earliest finish time, "
                        "contention-free transfers (Topcuoglu, Hariri, Wu, TPDS 2002)";
  }
  Plan plan(const PolicyContext& ctx) const { return heft_plan(ctx.cost, Contention, name(), ctx.observer); }
};
using HeftContention = Heft<true>;
using HeftClassic = Heft<false>;

} // namespace

HS_REGISTER_POLICY(HeftContention)
HS_REGISTER_POLICY(HeftClassic)

} // namespace hs
