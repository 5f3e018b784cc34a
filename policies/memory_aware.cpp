// memory-aware: HEFT with each device's memory capacity as a hard constraint, in the manner of Baechi's
// m-ETF (Jeon et al., "Baechi: fast device placement of machine learning graphs", SoCC 2020): an op may
// only go to a device whose memory still holds everything placed there so far plus what the op adds.
// The account is conservative, so the plan never exceeds capacity in any replay: a device is charged for
// the parameters and outputs of every op placed on it and for every tensor copied to it, all kept for the
// whole run, plus its largest workspace once per stream; an optimizer update's workspace is kept for the
// whole run too, since the step holds every update's until its last ends (sim/memory.hpp). A graph too large
// for any single device is spread over several; a graph too large for all of them together is refused with
// the op that did not fit.
#include "policies/heft.hpp"
#include "policies/input_arrival.hpp"
#include "policies/policy.hpp"
#include "sim/op_kinds.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <set>

namespace hs {
namespace {

template <bool Contention> struct MemoryAware {
  std::string name() const { return Contention ? "memory-aware" : "memory-aware-classic"; }
  std::string description() const {
    return std::string("HEFT with device memory capacity as a hard constraint, conservative account (Baechi "
                       "m-ETF, SoCC 2020)") +
           (Contention ? ", transfers booked on links and copy engines" : ", contention-free transfers");
  }

  // The list schedule so far and what each device is charged with.
  struct State {
    State(const CostModel& cost, std::size_t n, std::size_t devices)
        : device(n, -1), start(n, 0.0), finish(n, 0.0), resident(devices, 0.0), workspace(devices, 0.0),
          held(devices), table(static_cast<int>(devices)), inputs(cost, Contention) {}
    std::vector<DeviceId> device;
    std::vector<double> start, finish;
    std::vector<double> resident, workspace;
    std::vector<std::set<TensorId>> held; // tensors already charged to each device
    Timetable table;
    InputArrival inputs;
  };

  struct Choice {
    DeviceId device = -1;
    double start = 0, finish = kInfeasible, added = 0;
  };

  Plan plan(const PolicyContext& ctx) const {
    const CostModel& cost = ctx.cost;
    const Graph& g = ctx.graph();
    const Platform& p = ctx.platform();
    State st(cost, static_cast<std::size_t>(g.op_count()), static_cast<std::size_t>(p.device_count()));
    const auto rank = upward_ranks(cost);
    const auto order = order_by_decreasing(g, rank);
    if (ctx.observer) {
      ctx.observer->ranks(
          upward_rank_rules("earliest finish time among the devices whose memory still holds it"), rank,
          order, {});
      ctx.observer->list_schedule(Contention, "a device must finish strictly earlier to displace one found "
                                              "earlier, so the first tied device in platform order wins");
    }
    for (OpId o : order) {
      const Op& op = g.op(o);
      const Choice best = choose(o, cost, st, ctx.observer);
      const auto bi = static_cast<std::size_t>(best.device);
      const auto oi = static_cast<std::size_t>(o);
      st.inputs.commit(o, best.device, st.device, st.finish);
      st.device[oi] = best.device;
      st.start[oi] = best.start;
      st.finish[oi] = best.finish;
      st.table.reserve(best.device, best.start, best.finish);
      st.resident[bi] += best.added;
      st.workspace[bi] = std::max(st.workspace[bi], transient_workspace(op));
      for (TensorId t : op.outputs)
        st.held[bi].insert(t);
      for (TensorId t : op.inputs)
        st.held[bi].insert(t);
      if (ctx.observer) ctx.observer->chosen(o, best.device, best.start, best.finish);
    }
    Plan plan = plan_from_assignment(g, p, st.device, st.start, name());
    return Contention ? refine_list_plan(std::move(plan), cost, ctx.observer, true) : plan;
  }

  // The workspace `op` frees as it ends: all but an optimizer update's.
  static double transient_workspace(const Op& op) {
    return op.kind == optimizer_kind ? 0.0 : op.workspace_bytes;
  }

  // The device where `o` finishes first among those whose memory still holds it.
  static Choice choose(OpId o, const CostModel& cost, State& st, ScheduleObserver* observer) {
    const Graph& g = cost.graph();
    const Platform& p = cost.platform();
    const Op& op = g.op(o);
    Choice best;
    std::string fullest;
    for (DeviceId d = 0; d < p.device_count(); ++d) {
      const auto di = static_cast<std::size_t>(d);
      const double w = cost.op_time(o, d);
      if (w == kInfeasible) {
        if (observer) observer->excluded(o, d, cost.infeasibility_reason(o, d));
        continue;
      }
      double added = op.param_bytes + op.workspace_bytes - transient_workspace(op);
      for (TensorId t : op.outputs)
        added += g.tensor(t).bytes;
      for (TensorId t : op.inputs)
        if (!st.held[di].count(t)) added += g.tensor(t).bytes;
      const double need = st.resident[di] + added +
                          std::max(st.workspace[di], transient_workspace(op)) * p.devices[di].streams;
      if (need > p.devices[di].memory_capacity) {
        const std::string why = p.devices[di].name + " would need " + units::format_bytes(need);
        fullest += (fullest.empty() ? "" : ", ") + why;
        if (observer)
          observer->excluded(o, d, why + " of its " + units::format_bytes(p.devices[di].memory_capacity));
        continue;
      }
      const double ready = st.inputs.ready_time(o, d, st.device, st.finish);
      if (ready == kInfeasible) {
        if (observer) observer->excluded(o, d, "an input cannot reach this device (no route)");
        continue;
      }
      const double s = st.table.earliest_start(d, ready, w);
      if (observer) observer->candidate(o, d, ready, s, s + w, s + w);
      if (s + w < best.finish) best = {d, s, s + w, added};
    }
    if (best.device < 0)
      throw PlanError("memory-aware: op '" + op.name + "' fits on no device (" +
                      (fullest.empty() ? std::string("no device can run it") : fullest) + ")");
    return best;
  }
};

using MemoryAwareContention = MemoryAware<true>;
using MemoryAwareClassic = MemoryAware<false>;

} // namespace

HS_REGISTER_POLICY(MemoryAwareContention)
HS_REGISTER_POLICY(MemoryAwareClassic)

} // namespace hs
