// heft-dvfs: energy-aware DVFS on top of HEFT, after the slack-reclamation schemes of list-scheduled DAGs
// (Kimura et al., "Emprical study on reducing energy of parallel programs using slack reclamation by
// DVFS in a power-scalable high performance cluster", IEEE Cluster 2006; Rizvandi et al., "Some
// observations on optimal frequency selection in DVFS-based energy consumption minimization", JPDC 2011).
// The HEFT plan keeps its devices and orders. A backward pass gives each op its latest finish that does
// not push the makespan past (1 + slack) times HEFT's (slack from --policy-config, default 0): at most
// the latest start of each successor minus the transfer, and of the next op on its stream. Each op then
// takes the p-state that spends the least energy above idle, (busy watts - idle watts) x stretched time,
// among those that still finish by that deadline when it starts as early as in the HEFT schedule. Every
// op then starts no later than its latest start, so the analytic makespan stays within the allowed slack.
// With slack > 0 the stretched plan is kept only if it spends less energy in total than the plan without
// slack (a longer run draws idle power on every device), so energy never rises above HEFT's.
#include "policies/heft.hpp"
#include "policies/policy.hpp"
#include "policies/policy_config.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"

#include <algorithm>
#include <numeric>

namespace hs {
namespace {

// Contention: the contention-aware HEFT plan, with slack measured on the contention-aware evaluator's
// timeline (real transfer durations); classic: HEFT as published and the contention-free timeline.
template <bool Contention> struct HeftDvfs {
  std::string name() const { return Contention ? "heft-dvfs" : "heft-dvfs-classic"; }
  std::string description() const {
    return std::string(Contention ? "contention-aware HEFT" : "classic HEFT") +
           ", then lower p-states of ops with slack to save energy without extending the makespan beyond "
           "--policy-config slack (slack reclamation, Kimura et al. 2006)";
  }

  static Execution timeline(const Plan& plan, const CostModel& cost) {
    return Contention ? run_contention(plan, cost) : run_analytic(plan, cost);
  }

  Plan plan(const PolicyContext& ctx) const {
    const CostModel& cost = ctx.cost;
    double slack = 0.0;
    if (auto section = policy_section(ctx, name())) {
      section->expect_only({"slack", "notes"});
      if (auto s = section->find("slack")) {
        slack = s->as_number();
        if (slack < 0 || slack > 10) s->fail("slack is a fraction of the makespan, in [0, 10]");
      }
    }
    Plan heft = heft_plan(cost, Contention, name());
    heft.policy = name();
    // HEFT's own timeline, computed once: every lowering below starts from it.
    const Execution heft_run = timeline(heft, cost);
    const double nominal = heft_run.makespan * (1 + 1e-9);
    Plan plan =
        within_limit(heft, heft_run, cost, 0.0, nominal); // without slack: not a moment longer than HEFT
    if (slack > 0) {
      // A longer makespan also costs idle power on every device, which the per-op choice does not see: use
      // the slack only when the whole plan then spends less energy.
      Plan stretched = within_limit(heft, heft_run, cost, slack, nominal * (1 + slack));
      const auto energy = [&](const Plan& x) {
        const auto e = timeline(x, cost).device_energy;
        return std::accumulate(e.begin(), e.end(), 0.0);
      };
      if (energy(stretched) < energy(plan)) plan = std::move(stretched);
    }
    return plan;
  }

  // Slower ops shift transfers, and under contention that can delay others past the deadline the backward
  // pass assumed. Contention-aware, the deadline is tightened step by step until the evaluator confirms
  // the makespan stays within `limit` (the nominal plan always does).
  static Plan within_limit(const Plan& heft, const Execution& heft_run, const CostModel& cost, double slack,
                           double limit) {
    if (!Contention) return lower_pstates(heft, heft_run, cost, slack);
    for (double margin : {1.0, 0.99, 0.97, 0.94, 0.9, 0.85, 0.8, 0.7}) {
      Plan lowered = lower_pstates(heft, heft_run, cost, slack, margin);
      if (timeline(lowered, cost).makespan <= limit) return lowered;
    }
    return heft;
  }

  // How long each tensor's transfers took in the timeline: (destination, seconds) per tensor.
  using Durations = std::vector<std::vector<std::pair<DeviceId, double>>>;
  static Durations transfer_durations(const Execution& e, const Graph& g) {
    Durations d(static_cast<std::size_t>(g.tensor_count()));
    for (const auto& tr : e.transfers)
      d[static_cast<std::size_t>(tr.tensor)].emplace_back(tr.to, tr.end - tr.start);
    return d;
  }
  // The contention-free time in the classic form.
  static double transfer_seconds(const Durations& moved, const CostModel& cost, TensorId t, DeviceId from,
                                 DeviceId to) {
    if (from == to) return 0.0;
    if (Contention)
      for (const auto& [where, seconds] : moved[static_cast<std::size_t>(t)])
        if (where == to) return seconds;
    return cost.transfer_time(t, from, to);
  }

  // `nominal` is `plan`'s timeline at nominal p-states.
  static Plan lower_pstates(Plan plan, const Execution& nominal, const CostModel& cost, double slack,
                            double margin = 1.0) {
    const Graph& g = cost.graph();
    const Platform& p = cost.platform();
    const Durations moved = transfer_durations(nominal, g);
    const double deadline = nominal.makespan * (1 + slack) * margin;

    const auto n = static_cast<std::size_t>(g.op_count());
    std::vector<OpId> next_on_stream(n, -1);
    for (const auto& streams : plan.queues)
      for (const auto& queue : streams)
        for (std::size_t k = 0; k + 1 < queue.size(); ++k)
          next_on_stream[static_cast<std::size_t>(queue[k])] = queue[k + 1];

    std::vector<double> latest_start(n, deadline);
    const auto order = plan_execution_order(plan, g);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const OpId o = *it;
      const auto oi = static_cast<std::size_t>(o);
      const DeviceId d = plan.device[oi];
      double latest_finish = deadline;
      for (TensorId t : g.op(o).outputs)
        for (OpId c : g.tensor(t).consumers) {
          const DeviceId to = plan.device[static_cast<std::size_t>(c)];
          latest_finish = std::min(latest_finish, latest_start[static_cast<std::size_t>(c)] -
                                                      transfer_seconds(moved, cost, t, d, to));
        }
      if (next_on_stream[oi] >= 0)
        latest_finish = std::min(latest_finish, latest_start[static_cast<std::size_t>(next_on_stream[oi])]);
      const auto& states = p.devices[static_cast<std::size_t>(d)].pstates;
      int chosen = 0;
      double chosen_energy = kInfeasible;
      for (int s = 0; s < static_cast<int>(states.size()); ++s) {
        const double duration = cost.op_time(o, d, s);
        // A small relative tolerance keeps the nominal state feasible despite rounding.
        if (nominal.ops[oi].start + duration > latest_finish * (1 + 1e-12) && s != 0) continue;
        const double energy =
            (states[static_cast<std::size_t>(s)].busy_watts - states.front().idle_watts) * duration;
        if (energy < chosen_energy) {
          chosen = s;
          chosen_energy = energy;
        }
      }
      plan.pstate[oi] = chosen;
      latest_start[oi] = latest_finish - cost.op_time(o, d, chosen);
    }
    return plan;
  }
};

using HeftDvfsContention = HeftDvfs<true>;
using HeftDvfsClassic = HeftDvfs<false>;

} // namespace

HS_REGISTER_POLICY(HeftDvfsContention)
HS_REGISTER_POLICY(HeftDvfsClassic)

} // namespace hs
