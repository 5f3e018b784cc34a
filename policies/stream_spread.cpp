#include "policies/stream_spread.hpp"

#include "sim/contention_engine.hpp"
#include "sim/memory.hpp"

#include <algorithm>

namespace hs {

namespace {
// Deals device `d`'s queue over its streams as a list scheduler would, on estimates: an op can start on a
// stream once that stream's previous op ends and its inputs are there (a same-device producer's estimated
// end; a transfer's end on the single-stream timeline). Each op takes the stream where it can start first; on
// a tie, its same-device producer's stream (a chain stays in order), else the stream that frees latest (the
// others stay open for ops that are ready early). The estimate ignores that the streams share the device's
// speed; the evaluator judges the result.
void deal(const Plan& plan, const CostModel& cost, const std::vector<double>& arrival_on, DeviceId d,
          std::vector<double>& end, Plan& out) {
  const Graph& g = cost.graph();
  const auto di = static_cast<std::size_t>(d);
  const auto streams = static_cast<std::size_t>(cost.platform().devices[di].streams);
  std::vector<double> frees(streams, 0.0);
  std::vector<OpId> last(streams, -1);
  for (const auto& queue : plan.queues[di])
    for (OpId o : queue) {
      const auto oi = static_cast<std::size_t>(o);
      double ready = 0.0;
      for (TensorId t : g.op(o).inputs) {
        const OpId producer = g.tensor(t).producer;
        ready = std::max(ready, plan.device[static_cast<std::size_t>(producer)] == d
                                    ? end[static_cast<std::size_t>(producer)]
                                    : arrival_on[static_cast<std::size_t>(t)]);
      }
      std::size_t chosen = 0;
      double best = kInfeasible;
      bool chained = false;
      for (std::size_t s = 0; s < streams; ++s) {
        const double start = std::max(frees[s], ready);
        const auto& preds = g.predecessors(o);
        const bool chain = last[s] >= 0 && std::find(preds.begin(), preds.end(), last[s]) != preds.end();
        const bool better =
            start < best ||
            (start == best && ((chain && !chained) || (chain == chained && frees[s] > frees[chosen])));
        if (better) {
          chosen = s;
          best = start;
          chained = chain;
        }
      }
      end[oi] = best + cost.op_time(o, d, plan.pstate[oi]);
      frees[chosen] = end[oi];
      last[chosen] = o;
      out.append(o, d, static_cast<int>(chosen), plan.pstate[oi]);
    }
}
} // namespace

Plan spread_over_streams(Plan plan, const CostModel& cost, bool respect_capacity,
                         std::optional<double>* makespan) {
  const Platform& p = cost.platform();
  if (std::none_of(p.devices.begin(), p.devices.end(), [](const Device& d) { return d.streams > 1; }))
    return plan;
  ContentionEvaluator evaluator(cost);
  const Execution timeline = evaluator.run(plan, false);
  if (makespan) *makespan = timeline.makespan; // until the spread plan is kept
  // When each tensor reached each device on the single-stream timeline (one transfer per tensor and device).
  const Graph& g = cost.graph();
  std::vector<std::vector<double>> arrival(
      static_cast<std::size_t>(p.device_count()),
      std::vector<double>(static_cast<std::size_t>(g.tensor_count()), 0.0));
  for (const TransferRun& t : timeline.transfers)
    arrival[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.tensor)] = t.end;
  std::vector<double> end(static_cast<std::size_t>(g.op_count()), 0.0);
  for (std::size_t o = 0; o < end.size(); ++o)
    end[o] = timeline.ops[o].end;
  Plan spread = Plan::empty(g.op_count(), p, plan.policy);
  for (DeviceId d = 0; d < p.device_count(); ++d) {
    if (p.devices[static_cast<std::size_t>(d)].streams > 1) {
      deal(plan, cost, arrival[static_cast<std::size_t>(d)], d, end, spread);
      continue;
    }
    for (std::size_t s = 0; s < plan.queues[static_cast<std::size_t>(d)].size(); ++s)
      for (OpId o : plan.queues[static_cast<std::size_t>(d)][s])
        spread.append(o, d, static_cast<int>(s), plan.pstate[static_cast<std::size_t>(o)]);
  }
  if (spread.queues == plan.queues) return plan; // dealt as it was: nothing to judge
  // Every stream follows the plan's own order, which respects dependencies, so the streams cannot wait on
  // each other in a cycle; the check stays, and a spread it refused would simply not be used.
  try {
    validate_plan(spread, cost);
  } catch (const PlanError&) {
    return plan;
  }
  const double spread_makespan = evaluator.makespan(spread);
  if (!(spread_makespan < timeline.makespan)) return plan;
  if (respect_capacity) {
    MemoryUsage usage; // the evaluator tracked the spread plan's peaks as it ran
    usage.peak = evaluator.peak_memory();
    if (!capacity_violations(usage, p).empty()) return plan;
  }
  if (makespan) *makespan = spread_makespan;
  return spread;
}

} // namespace hs
