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
#include <optional>
#include <tuple>

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

struct Candidate {
  DeviceId device = -1;
  double score = kInfeasible, start = 0, finish = 0;
  // Whether this candidate takes the place of `best`: a strictly lower score, or the same score on a device
  // earlier in platform order (so the outcome does not depend on the order devices are tried in).
  bool beats(const Candidate& best) const {
    return score < best.score || (score == best.score && best.device >= 0 && device < best.device);
  }
};

// Every device, each reported to the observer: what `explain` shows.
Candidate choose_observed(OpId o, const CostModel& cost, InputArrival& inputs, const Timetable& table,
                          const ListSchedule& s, const ListScore& score, ScheduleObserver& observer) {
  Candidate best;
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d) {
    const double w = cost.op_time(o, d);
    const double ready = w == kInfeasible ? kInfeasible : inputs.ready_time(o, d, s.device, s.finish);
    if (ready == kInfeasible) {
      observer.excluded(o, d,
                        w == kInfeasible ? cost.infeasibility_reason(o, d)
                                         : "an input cannot reach this device (no route)");
      continue;
    }
    const double start = table.earliest_start(d, ready, w);
    const Candidate c{d, score(o, d, start + w), start, start + w};
    observer.candidate(o, d, ready, start, c.finish, c.score);
    if (c.beats(best)) best = c;
  }
  return best;
}

// The same choice, without booking transfers for devices that cannot win: each device's score at its
// contention-free data-ready time bounds its real score from below (a later ready time never starts an op
// sooner, and scores do not fall as the finish time rises), so devices are tried by increasing bound and
// the rest skipped once no bound can beat the best found.
Candidate choose_pruned(OpId o, const CostModel& cost, InputArrival& inputs, const Timetable& table,
                        const ListSchedule& s, const ListScore& score, std::vector<Candidate>& bounds) {
  bounds.clear();
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d) {
    const double w = cost.op_time(o, d);
    const double ready = w == kInfeasible ? kInfeasible : inputs.ready_lower_bound(o, d, s.device, s.finish);
    if (ready == kInfeasible) continue;
    const double start = table.earliest_start(d, ready, w);
    bounds.push_back({d, score(o, d, start + w), start, start + w});
  }
  std::sort(bounds.begin(), bounds.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.score, a.device) < std::tie(b.score, b.device);
  });
  Candidate best;
  for (const Candidate& bound : bounds) {
    if (!bound.beats(best)) break;
    const double w = cost.op_time(o, bound.device);
    // Scores do not fall as the finish rises, so once the inputs alone finish too late the device is out.
    const auto hopeless = [&](double ready) {
      return !Candidate{bound.device, score(o, bound.device, ready + w), 0, 0}.beats(best);
    };
    const double ready = best.device < 0 ? inputs.ready_time(o, bound.device, s.device, s.finish)
                                         : inputs.ready_time(o, bound.device, s.device, s.finish, hopeless);
    if (ready == kInfeasible) continue;
    const double start = table.earliest_start(bound.device, ready, w);
    const Candidate c{bound.device, score(o, bound.device, start + w), start, start + w};
    if (c.beats(best)) best = c;
  }
  return best;
}

} // namespace

ListSchedule schedule_in_order(const std::vector<OpId>& order, const CostModel& cost, bool contention,
                               const ListScore& score, ScheduleObserver* observer) {
  const auto n = static_cast<std::size_t>(cost.graph().op_count());
  ListSchedule s;
  s.device.assign(n, -1);
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  Timetable table(cost.platform().device_count());
  InputArrival inputs(cost, contention);
  std::vector<Candidate> bounds;
  if (observer)
    observer->list_schedule(contention, "a device must score strictly lower to displace one found earlier, "
                                        "so the first tied device in platform order wins");
  for (OpId o : order) {
    const Candidate best = observer ? choose_observed(o, cost, inputs, table, s, score, *observer)
                                    : choose_pruned(o, cost, inputs, table, s, score, bounds);
    if (best.device < 0) throw_no_device(o, cost, s.device);
    const auto oi = static_cast<std::size_t>(o);
    inputs.commit(o, best.device, s.device, s.finish);
    s.device[oi] = best.device;
    s.start[oi] = best.start;
    s.finish[oi] = best.finish;
    table.reserve(best.device, best.start, best.finish);
    if (observer) observer->chosen(o, best.device, best.start, best.finish);
  }
  return s;
}

Plan refine_list_plan(Plan plan, const CostModel& cost, ScheduleObserver* observer, bool respect_capacity) {
  std::optional<double> makespan; // the spread's evaluation, reused by the single-device check
  if (!observer) {
    Plan spread = spread_over_streams(std::move(plan), cost, respect_capacity, &makespan);
    return no_worse_than_single_device(std::move(spread), cost, respect_capacity, makespan);
  }
  const auto listed_device = plan.device;
  const auto listed_stream = plan.stream;
  Plan spread = spread_over_streams(std::move(plan), cost, respect_capacity, &makespan);
  const bool dealt = spread.stream != listed_stream;
  observer->note(dealt ? "each device's queue was dealt over its streams: the contention-aware evaluator "
                         "says that finishes sooner (devices unchanged, start times move)"
                       : "each device runs its queue in list order on one stream (dealing it over several "
                         "streams would not finish sooner, or the devices have one stream)");
  Plan final_plan = no_worse_than_single_device(std::move(spread), cost, respect_capacity, makespan);
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
