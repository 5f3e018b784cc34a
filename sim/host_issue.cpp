#include "sim/host_issue.hpp"

#include <algorithm>
#include <map>

namespace hs {

bool IssueCosts::any() const {
  return std::any_of(device.begin(), device.end(), [](double s) { return s > 0.0; }) ||
         std::any_of(op.begin(), op.end(), [](double s) { return s > 0.0; });
}

std::vector<double> host_issue_times(const Plan& plan, const IssueCosts& costs, std::size_t op_count) {
  if (!costs.any()) return {};
  std::vector<double> issued(op_count, 0.0);
  for (std::size_t d = 0; d < plan.queues.size(); ++d) {
    std::size_t longest = 0;
    for (const auto& queue : plan.queues[d])
      longest = std::max(longest, queue.size());
    double host = 0.0;
    for (std::size_t place = 0; place < longest; ++place)
      for (const auto& queue : plan.queues[d])
        if (place < queue.size()) {
          const auto o = static_cast<std::size_t>(queue[place]);
          host += costs.of(o, d);
          issued[o] = host;
        }
  }
  return issued;
}

namespace {

// When each of `o`'s inputs was on `device`: its producer's end there, or its transfer's arrival.
double inputs_ready(OpId o, DeviceId device, const Plan& plan, const Graph& g, const Execution& e,
                    const std::map<std::pair<TensorId, DeviceId>, double>& delivered) {
  double ready = 0.0;
  for (TensorId t : g.op(o).inputs) {
    const OpId producer = g.tensor(t).producer;
    if (producer < 0) continue;
    if (plan.device[static_cast<std::size_t>(producer)] == device) {
      ready = std::max(ready, e.ops[static_cast<std::size_t>(producer)].end);
    } else if (const auto it = delivered.find({t, device}); it != delivered.end()) {
      ready = std::max(ready, it->second);
    }
  }
  return ready;
}

} // namespace

std::vector<HostWait> host_waits(const Plan& plan, const Graph& g, const Execution& e) {
  std::vector<HostWait> waits(plan.queues.size());
  if (e.issued.empty()) return waits;
  std::map<std::pair<TensorId, DeviceId>, double> delivered;
  for (const auto& t : e.transfers) {
    double& at = delivered[{t.tensor, t.to}];
    at = std::max(at, t.end);
  }
  const double tolerance = 1e-9 * e.makespan;
  for (std::size_t d = 0; d < plan.queues.size(); ++d)
    for (const auto& queue : plan.queues[d]) {
      double stream_free = 0.0;
      for (OpId o : queue) {
        const auto oi = static_cast<std::size_t>(o);
        const double ready =
            std::max(stream_free, inputs_ready(o, static_cast<DeviceId>(d), plan, g, e, delivered));
        const double waited = std::min(e.ops[oi].start, e.issued[oi]) - ready;
        if (waited > tolerance) {
          ++waits[d].ops;
          waits[d].seconds += waited;
        }
        stream_free = e.ops[oi].end;
      }
    }
  return waits;
}

} // namespace hs
