#include "sim/training_metrics.hpp"

#include "sim/op_kinds.hpp"

#include <algorithm>
#include <map>

namespace hs {

namespace {

using Intervals = std::vector<std::pair<double, double>>;

Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

double length(const Intervals& v) {
  double s = 0;
  for (const auto& [a, b] : v)
    s += b - a;
  return s;
}

// Length of `a` outside `b`; both merged.
double outside(const Intervals& a, const Intervals& b) {
  double s = 0;
  std::size_t j = 0;
  for (const auto& [lo, hi] : a) {
    double at = lo;
    while (j < b.size() && b[j].second <= at)
      ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < hi; ++k) {
      if (b[k].first > at) s += b[k].first - at;
      at = std::max(at, b[k].second);
      if (at >= hi) break;
    }
    if (at < hi) s += hi - at;
  }
  return s;
}

} // namespace

TrainingMetrics training_metrics(const Plan& plan, const CostModel& cost, const Execution& e) {
  const Graph& g = cost.graph();
  const Platform& p = cost.platform();
  const std::size_t n = p.devices.size();
  std::vector<Intervals> compute(n), comm(n);
  std::vector<std::map<std::string, double>> flops_by_precision(n);
  TrainingMetrics m;
  for (OpId o = 0; o < g.op_count(); ++o) {
    const Op& op = g.op(o);
    const auto d = static_cast<std::size_t>(plan.device[static_cast<std::size_t>(o)]);
    const OpRun& r = e.ops[static_cast<std::size_t>(o)];
    if (is_synchronisation_kind(op.kind)) {
      if (op.kind == "collective") comm[d].emplace_back(r.start, r.end);
      continue;
    }
    compute[d].emplace_back(r.start, r.end);
    flops_by_precision[d][op.precision] += op.flops;
    m.model_flops += op.flops;
  }
  for (const auto& t : e.transfers)
    for (DeviceId end : {t.from, t.to})
      comm[static_cast<std::size_t>(end)].emplace_back(t.start, t.end);
  for (std::size_t d = 0; d < n; ++d) {
    if (compute[d].empty()) continue;
    ++m.devices;
    const auto busiest = std::max_element(flops_by_precision[d].begin(), flops_by_precision[d].end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto& peaks = p.devices[d].peak_flops;
    if (auto it = peaks.find(busiest->first); it != peaks.end()) m.peak_flops += it->second;
    const Intervals busy = merged(compute[d]), talking = merged(comm[d]);
    m.idle_fraction += e.makespan > 0 ? 1 - length(busy) / e.makespan : 0;
    m.communication += length(talking);
    m.exposed += outside(talking, busy);
  }
  if (m.devices > 0) {
    m.idle_fraction /= m.devices;
    m.communication /= m.devices;
    m.exposed /= m.devices;
  }
  m.mfu = e.makespan > 0 && m.peak_flops > 0 ? m.model_flops / (e.makespan * m.peak_flops) : 0;
  return m;
}

} // namespace hs
