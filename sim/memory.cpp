#include "sim/memory.hpp"

#include "sim/op_kinds.hpp"
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
      producer.name.ends_with(".wgrad") || producer.name.ends_with(tied_gradient_sum_suffix);
  const bool read_by_optimizer = std::any_of(t.consumers.begin(), t.consumers.end(),
                                             [&](OpId c) { return g.op(c).kind == optimizer_kind; });
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

// Per device, when its last optimizer update ends (0 where it runs none).
std::vector<double> optimizer_step_ends(const Plan& plan, const Graph& g, const Execution& e,
                                        std::size_t devices) {
  std::vector<double> end(devices, 0.0);
  for (std::size_t o = 0; o < g.ops.size(); ++o)
    if (g.ops[o].kind == optimizer_kind) {
      double& d = end[static_cast<std::size_t>(plan.device[o])];
      d = std::max(d, e.ops[o].end);
    }
  return end;
}

using Copy = std::tuple<DeviceId, double, double>; // where a tensor lives, from, until

// Each tensor's copies: on its producer's device, and on each device a transfer brought it to.
std::vector<std::vector<Copy>> tensor_copies(const Plan& plan, const Graph& g, const Execution& e,
                                             const std::vector<double>& step_end) {
  std::vector<std::vector<Copy>> copies(static_cast<std::size_t>(g.tensor_count()));
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    const auto pi = static_cast<std::size_t>(tensor.producer);
    const double until = tensor.consumers.empty() ? e.makespan : e.ops[pi].end;
    copies[static_cast<std::size_t>(t)].emplace_back(plan.device[pi], e.ops[pi].start, until);
  }
  auto copy_on = [&](TensorId t, DeviceId d) -> Copy& {
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
      const auto ci = static_cast<std::size_t>(c);
      const auto d = static_cast<std::size_t>(plan.device[ci]);
      auto& copy = copy_on(t, plan.device[ci]);
      const double read_until = g.ops[ci].kind == optimizer_kind ? step_end[d] : e.ops[ci].end;
      std::get<2>(copy) = std::max(std::get<2>(copy), read_until);
    }
  return copies;
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
  const std::vector<double> step_end = optimizer_step_ends(plan, g, e, devices);
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    const auto d = static_cast<std::size_t>(plan.device[oi]);
    const bool update = g.ops[oi].kind == optimizer_kind;
    m.parameters[d] += g.ops[oi].param_bytes;
    (update ? resident[d].optimizer_state : resident[d].parameters) += g.ops[oi].param_bytes;
    const double until = update ? std::max(e.ops[oi].end, step_end[d]) : e.ops[oi].end;
    occupy(plan.device[oi], e.ops[oi].start, until, g.ops[oi].workspace_bytes, Workspace);
  }
  const auto copies = tensor_copies(plan, g, e, step_end);
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
