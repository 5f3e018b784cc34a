#include "sim/memory.hpp"

#include "sim/units.hpp"

#include <algorithm>
#include <tuple>

namespace hs {

namespace {

enum Kind { Workspace, Activation, Gradient, Parameter };
struct Event {
  double time;
  double delta;
  Kind kind;
};

Kind tensor_kind(const Graph& g, const Tensor& t) {
  const Op& producer = g.op(t.producer);
  if (producer.kind == "collective" && producer.name.rfind(gathered_weights_prefix, 0) == 0) return Parameter;
  const bool weight_gradient =
      producer.name.size() > 6 && producer.name.compare(producer.name.size() - 6, 6, ".wgrad") == 0;
  const bool read_by_optimizer = std::any_of(t.consumers.begin(), t.consumers.end(),
                                             [&](OpId c) { return g.op(c).kind == "optimizer"; });
  return producer.kind == "collective" || weight_gradient || read_by_optimizer ? Gradient : Activation;
}

// The highest point of `resident` bytes plus the buffers `ev` allocates and frees, when it is first reached,
// and what it is made of.
void find_peak(std::vector<Event>& ev, const MemoryBreakdown& resident, double& peak, double& when,
               MemoryBreakdown& at) {
  // Frees before allocations at the same instant: a buffer released as another is created is not both live.
  std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.delta) < std::tie(b.time, b.delta);
  });
  double live = resident.parameters + resident.optimizer_state;
  MemoryBreakdown now = resident;
  peak = live;
  at = now;
  for (const auto& x : ev) {
    live += x.delta;
    (x.kind == Workspace   ? now.workspace
     : x.kind == Gradient  ? now.gradients
     : x.kind == Parameter ? now.parameters
                           : now.activations) += x.delta;
    if (live > peak * (1 + 1e-12)) {
      peak = live;
      when = x.time;
      at = now;
    }
  }
}

} // namespace

MemoryUsage memory_usage(const Plan& plan, const CostModel& cost, const Execution& e) {
  const Graph& g = cost.graph();
  const auto devices = static_cast<std::size_t>(cost.platform().device_count());
  std::vector<std::vector<Event>> events(devices);
  MemoryUsage m;
  m.parameters.assign(devices, 0.0);
  m.at_peak.assign(devices, {});
  std::vector<MemoryBreakdown> resident(devices);
  auto occupy = [&](DeviceId d, double from, double to, double bytes, Kind kind) {
    if (bytes <= 0) return;
    events[static_cast<std::size_t>(d)].push_back({from, bytes, kind});
    events[static_cast<std::size_t>(d)].push_back({to, -bytes, kind});
  };
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    const auto d = static_cast<std::size_t>(plan.device[oi]);
    m.parameters[d] += g.ops[oi].param_bytes;
    (g.ops[oi].kind == "optimizer" ? resident[d].optimizer_state : resident[d].parameters) +=
        g.ops[oi].param_bytes;
    occupy(plan.device[oi], e.ops[oi].start, e.ops[oi].end, g.ops[oi].workspace_bytes, Workspace);
  }
  // Where each tensor lives, and until when: (device, from, until) per copy.
  std::vector<std::vector<std::tuple<DeviceId, double, double>>> copies(
      static_cast<std::size_t>(g.tensor_count()));
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    const auto pi = static_cast<std::size_t>(tensor.producer);
    const double until = tensor.consumers.empty() ? e.makespan : e.ops[pi].end;
    copies[static_cast<std::size_t>(t)].emplace_back(plan.device[pi], e.ops[pi].start, until);
  }
  auto copy_on = [&](TensorId t, DeviceId d) -> std::tuple<DeviceId, double, double>& {
    for (auto& c : copies[static_cast<std::size_t>(t)])
      if (std::get<0>(c) == d) return c;
    return copies[static_cast<std::size_t>(t)].emplace_back(d, 0.0, 0.0);
  };
  for (const auto& tr : e.transfers) {
    auto& src = copy_on(tr.tensor, tr.from);
    std::get<2>(src) = std::max(std::get<2>(src), tr.end);
    auto& dst = copy_on(tr.tensor, tr.to);
    std::get<1>(dst) = tr.start;
    std::get<2>(dst) = std::max(std::get<2>(dst), tr.end);
  }
  for (TensorId t = 0; t < g.tensor_count(); ++t)
    for (OpId c : g.tensor(t).consumers) {
      auto& copy = copy_on(t, plan.device[static_cast<std::size_t>(c)]);
      std::get<2>(copy) = std::max(std::get<2>(copy), e.ops[static_cast<std::size_t>(c)].end);
    }
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Kind kind = tensor_kind(g, g.tensor(t));
    for (const auto& [d, from, until] : copies[static_cast<std::size_t>(t)])
      occupy(d, from, until, g.tensor(t).bytes, kind);
  }

  m.peak.assign(devices, 0.0);
  m.peak_time.assign(devices, 0.0);
  for (std::size_t d = 0; d < devices; ++d)
    find_peak(events[d], resident[d], m.peak[d], m.peak_time[d], m.at_peak[d]);
  return m;
}

std::vector<std::string> capacity_violations(const MemoryUsage& m, const Platform& p) {
  std::vector<std::string> out;
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    if (m.peak[d] > p.devices[d].memory_capacity)
      out.push_back(p.devices[d].name + ": peak " + units::format_bytes(m.peak[d]) +
                    " exceeds its capacity of " + units::format_bytes(p.devices[d].memory_capacity));
  return out;
}

} // namespace hs
