#include "sim/execution.hpp"

#include <algorithm>
#include <tuple>

namespace hs {

std::vector<double> bytes_per_link(const Execution& e, const Platform& p) {
  std::vector<double> bytes(p.links.size(), 0.0);
  for (const auto& t : e.transfers)
    if (const Route* r = p.route(t.from, t.to))
      for (const auto& hop : r->hops)
        bytes[static_cast<std::size_t>(hop.link)] += t.bytes;
  return bytes;
}

void sort_transfers(std::vector<TransferRun>& transfers) {
  std::sort(transfers.begin(), transfers.end(), [](const TransferRun& a, const TransferRun& b) {
    return std::tie(a.start, a.tensor, a.to) < std::tie(b.start, b.tensor, b.to);
  });
}

void fill_analytic_energy(Execution& e, const Plan& plan, const CostModel& cost) {
  const Platform& p = cost.platform();
  const Graph& g = cost.graph();
  e.device_energy.assign(p.devices.size(), 0.0);
  // Busy intervals per device; streams may overlap, and an overlapped instant draws busy power once.
  std::vector<std::vector<std::pair<double, double>>> busy(p.devices.size());
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    busy[static_cast<std::size_t>(plan.device[oi])].emplace_back(e.ops[oi].start, e.ops[oi].end);
  }
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const auto& dev = p.devices[d];
    double energy = dev.idle_watts() * e.makespan;
    auto& iv = busy[d];
    std::sort(iv.begin(), iv.end());
    double covered_until = 0.0;
    for (const auto& [s, t] : iv) {
      const double from = std::max(s, covered_until);
      if (t > from) energy += (t - from) * (dev.pstates.front().busy_watts - dev.idle_watts());
      covered_until = std::max(covered_until, t);
    }
    e.device_energy[d] = energy;
  }
  // Ops at lower p-states draw that state's busy power instead of the nominal one.
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    if (plan.pstate[oi] == 0) continue;
    const auto d = static_cast<std::size_t>(plan.device[oi]);
    const auto& states = p.devices[d].pstates;
    const auto& st = states[static_cast<std::size_t>(plan.pstate[oi])];
    e.device_energy[d] += (e.ops[oi].end - e.ops[oi].start) * (st.busy_watts - states.front().busy_watts);
  }
  e.link_energy.assign(p.links.size(), 0.0);
  const auto bytes = bytes_per_link(e, p);
  for (std::size_t l = 0; l < p.links.size(); ++l) {
    const auto& link = p.links[l];
    const double use_seconds = bytes[l] / link.bandwidth;
    const double share = link.sharing == Sharing::SplitDuplex ? 0.5 : 1.0;
    e.link_energy[l] =
        link.idle_watts * e.makespan + (link.busy_watts - link.idle_watts) * share * use_seconds;
  }
}

} // namespace hs
