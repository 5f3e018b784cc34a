// memory-aware: HEFT with each device's memory capacity as a hard constraint, in the manner of Baechi's
// m-ETF (Jeon et al., "Baechi: fast device placement of machine learning graphs", SoCC 2020): an op may
// only go to a device whose memory still holds everything placed there so far plus what the op adds.
// The account is conservative, so the plan never exceeds capacity in any replay: a device is charged for
// the parameters and outputs of every op placed on it and for every tensor copied to it, all kept for the
// whole run, plus its largest workspace once per stream. A graph too large for any single device is spread
// over several; a graph too large for all of them together is refused with the op that did not fit.
#include "policies/heft.hpp"
#include "policies/input_arrival.hpp"
#include "policies/policy.hpp"
#include "policies/single_device.hpp"
#include "policies/stream_spread.hpp"
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

  Plan plan(const PolicyContext& ctx) const {
    const CostModel& cost = ctx.cost;
    const Graph& g = ctx.graph();
    const Platform& p = ctx.platform();
    const auto n = static_cast<std::size_t>(g.op_count());
    const auto devices = static_cast<std::size_t>(p.device_count());
    std::vector<DeviceId> device(n, -1);
    std::vector<double> start(n, 0.0), finish(n, 0.0);
    std::vector<double> resident(devices, 0.0), workspace(devices, 0.0);
    std::vector<std::set<TensorId>> held(devices); // tensors already charged to each device
    Timetable table(p.device_count());
    InputArrival inputs(cost, Contention);
    for (OpId o : order_by_decreasing(g, upward_ranks(cost))) {
      const Op& op = g.op(o);
      DeviceId best = -1;
      double best_start = 0, best_finish = kInfeasible, best_added = 0;
      std::string fullest;
      for (DeviceId d = 0; d < p.device_count(); ++d) {
        const auto di = static_cast<std::size_t>(d);
        const double w = cost.op_time(o, d);
        if (w == kInfeasible) continue;
        double added = op.param_bytes;
        for (TensorId t : op.outputs)
          added += g.tensor(t).bytes;
        for (TensorId t : op.inputs)
          if (!held[di].count(t)) added += g.tensor(t).bytes;
        const double need =
            resident[di] + added + std::max(workspace[di], op.workspace_bytes) * p.devices[di].streams;
        if (need > p.devices[di].memory_capacity) {
          fullest +=
              (fullest.empty() ? "" : ", ") + p.devices[di].name + " would need " + units::format_bytes(need);
          continue;
        }
        const double ready = inputs.ready_time(o, d, device, finish);
        if (ready == kInfeasible) continue;
        const double s = table.earliest_start(d, ready, w);
        if (s + w < best_finish) {
          best = d;
          best_start = s;
          best_finish = s + w;
          best_added = added;
        }
      }
      if (best < 0)
        throw PlanError("memory-aware: op '" + op.name + "' fits on no device (" +
                        (fullest.empty() ? std::string("no device can run it") : fullest) + ")");
      const auto bi = static_cast<std::size_t>(best);
      const auto oi = static_cast<std::size_t>(o);
      inputs.commit(o, best, device, finish);
      device[oi] = best;
      start[oi] = best_start;
      finish[oi] = best_finish;
      table.reserve(best, best_start, best_finish);
      resident[bi] += best_added;
      workspace[bi] = std::max(workspace[bi], op.workspace_bytes);
      for (TensorId t : op.outputs)
        held[bi].insert(t);
      for (TensorId t : op.inputs)
        held[bi].insert(t);
    }
    Plan plan = plan_from_assignment(g, p, device, start, name());
    return Contention
               ? no_worse_than_single_device(spread_over_streams(std::move(plan), cost, true), cost, true)
               : plan;
  }
};

using MemoryAwareContention = MemoryAware<true>;
using MemoryAwareClassic = MemoryAware<false>;

} // namespace

HS_REGISTER_POLICY(MemoryAwareContention)
HS_REGISTER_POLICY(MemoryAwareClassic)

} // namespace hs
