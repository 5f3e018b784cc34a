#include "sim/execution.hpp"

#include <algorithm>
#include <numeric>
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

namespace {
// Length of the union of [start, end) intervals (sorted in place): time covered by at least one of them.
double covered_seconds(std::vector<std::pair<double, double>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  double covered = 0.0, covered_until = 0.0;
  for (const auto& [s, t] : intervals) {
    const double from = std::max(s, covered_until);
    if (t > from) covered += t - from;
    covered_until = std::max(covered_until, t);
  }
  return covered;
}
} // namespace

std::vector<double> busy_seconds_per_link(const Execution& e, const Platform& p) {
  std::vector<std::vector<std::pair<double, double>>> on(p.links.size());
  for (const auto& t : e.transfers)
    if (const Route* r = p.route(t.from, t.to))
      for (const auto& hop : r->hops)
        on[static_cast<std::size_t>(hop.link)].emplace_back(t.start, t.end);
  std::vector<double> busy(p.links.size(), 0.0);
  for (std::size_t l = 0; l < on.size(); ++l)
    busy[l] = covered_seconds(on[l]);
  return busy;
}

std::vector<double> busy_seconds_per_device(const Execution& e, const Plan& plan, std::size_t devices) {
  std::vector<std::vector<std::pair<double, double>>> on(devices);
  for (std::size_t o = 0; o < e.ops.size(); ++o)
    on[static_cast<std::size_t>(plan.device[o])].emplace_back(e.ops[o].start, e.ops[o].end);
  std::vector<double> busy(devices, 0.0);
  for (std::size_t d = 0; d < devices; ++d)
    busy[d] = covered_seconds(on[d]);
  return busy;
}

void sort_transfers(std::vector<TransferRun>& transfers) {
  std::sort(transfers.begin(), transfers.end(), canonical_transfer_less);
}

void fill_analytic_energy(Execution& e, const Plan& plan, const CostModel& cost) {
  const Platform& p = cost.platform();
  const Graph& g = cost.graph();
  std::vector<double> extra(p.devices.size(), 0.0);
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    const auto d = static_cast<std::size_t>(plan.device[oi]);
    // Ops at lower p-states draw that state's busy power instead of the nominal one.
    if (plan.pstate[oi] != 0) {
      const auto& states = p.devices[d].pstates;
      extra[d] += (e.ops[oi].end - e.ops[oi].start) *
                  (states[static_cast<std::size_t>(plan.pstate[oi])].busy_watts - states.front().busy_watts);
    }
  }
  // Streams may overlap, and an overlapped instant draws busy power once.
  fill_energy_from_usage(e, p, busy_seconds_per_device(e, plan, p.devices.size()), extra,
                         bytes_per_link(e, p));
}

void fill_energy_from_usage(Execution& e, const Platform& p, const std::vector<double>& busy_seconds,
                            const std::vector<double>& pstate_extra_joules,
                            const std::vector<double>& link_bytes) {
  e.device_energy.assign(p.devices.size(), 0.0);
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const auto& dev = p.devices[d];
    e.device_energy[d] = dev.idle_watts() * e.makespan +
                         busy_seconds[d] * (dev.pstates.front().busy_watts - dev.idle_watts()) +
                         pstate_extra_joules[d];
  }
  e.link_energy.assign(p.links.size(), 0.0);
  for (std::size_t l = 0; l < p.links.size(); ++l) {
    const auto& link = p.links[l];
    const double use_seconds = link_bytes[l] / link.bandwidth;
    const double share = link.sharing == Sharing::SplitDuplex ? 0.5 : 1.0;
    e.link_energy[l] =
        link.idle_watts * e.makespan + (link.busy_watts - link.idle_watts) * share * use_seconds;
  }
}

double total_energy(const Execution& e) {
  return std::accumulate(e.device_energy.begin(), e.device_energy.end(), 0.0) +
         std::accumulate(e.link_energy.begin(), e.link_energy.end(), 0.0);
}

} // namespace hs
