#include "policies/input_arrival.hpp"

#include <algorithm>

namespace hs {

namespace {
int total_copy_engines(const Platform& p) {
  int n = 0;
  for (const auto& d : p.devices)
    n += 2 * d.copy_engines; // outgoing and incoming
  return n;
}
} // namespace

InputArrival::InputArrival(const CostModel& cost, bool contention)
    : cost_(cost), contention_(contention), devices_(cost.platform().device_count()),
      table_(total_copy_engines(cost.platform()) + 2 * static_cast<int>(cost.platform().links.size())) {
  const Platform& p = cost.platform();
  int next = 0;
  for (const auto& d : p.devices) {
    out_base_.push_back(next);
    in_base_.push_back(next + d.copy_engines);
    next += 2 * d.copy_engines;
  }
  link_base_ = next;
  const auto n = static_cast<std::size_t>(devices_);
  route_resources_.resize(n * n);
  for (DeviceId a = 0; a < devices_; ++a)
    for (DeviceId b = 0; b < devices_; ++b)
      if (const Route* r = a != b ? p.route(a, b) : nullptr)
        for (const auto& hop : r->hops)
          route_resources_[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)].push_back(
              link_base_ + link_direction(p, hop));
  arrival_.resize(static_cast<std::size_t>(cost.graph().tensor_count()));
}

double InputArrival::ready_time(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                                const std::vector<double>& finish) {
  return arrive(op, device, placed_on, finish, false);
}

double InputArrival::commit(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                            const std::vector<double>& finish) {
  return arrive(op, device, placed_on, finish, true);
}

double InputArrival::arrive(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                            const std::vector<double>& finish, bool keep) {
  const Graph& g = cost_.graph();
  if (!contention_) return data_ready_time(op, device, cost_, placed_on, finish);
  inputs_.clear();
  for (TensorId t : g.op(op).inputs) {
    const auto pi = static_cast<std::size_t>(g.tensor(t).producer);
    inputs_.emplace_back(finish[pi], t);
  }
  std::sort(inputs_.begin(), inputs_.end());
  inputs_.erase(std::unique(inputs_.begin(), inputs_.end()), inputs_.end());
  tentative_.clear();
  double ready = 0.0;
  for (const auto& [done, t] : inputs_) {
    const DeviceId from = placed_on[static_cast<std::size_t>(g.tensor(t).producer)];
    if (from == device) {
      ready = std::max(ready, done);
      continue;
    }
    auto& known = arrival_[static_cast<std::size_t>(t)];
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const auto& a) { return a.first == device; });
    const double at = it != known.end() ? it->second : book_transfer(t, from, device, done);
    if (keep && it == known.end()) known.emplace_back(device, at);
    ready = std::max(ready, at);
  }
  if (!keep)
    for (const Booking& b : tentative_)
      table_.release(b.resource, b.start, b.end);
  tentative_.clear();
  return ready;
}

double InputArrival::book_transfer(TensorId t, DeviceId from, DeviceId to, double ready) {
  const Tensor& tensor = cost_.graph().tensor(t);
  const double duration = cost_.transfer_time(t, from, to);
  if (tensor.comm_time || duration == kInfeasible) return ready + duration;
  const auto& links = route_resources_[static_cast<std::size_t>(from) * static_cast<std::size_t>(devices_) +
                                       static_cast<std::size_t>(to)];
  const auto& devices = cost_.platform().devices;
  const int outs = devices[static_cast<std::size_t>(from)].copy_engines;
  const int ins = devices[static_cast<std::size_t>(to)].copy_engines;
  double best = kInfeasible;
  int best_out = -1, best_in = -1;
  // Engines never booked are interchangeable: try only the first of them in each pool.
  for (int k = 0; k < outs; ++k) {
    const int out = out_base_[static_cast<std::size_t>(from)] + k;
    if (k > 0 && table_.unused(out) && table_.unused(out - 1)) break;
    for (int j = 0; j < ins; ++j) {
      const int in = in_base_[static_cast<std::size_t>(to)] + j;
      if (j > 0 && table_.unused(in) && table_.unused(in - 1)) break;
      const double start = earliest_common_start(out, in, links, ready, duration);
      if (start < best) {
        best = start;
        best_out = out;
        best_in = in;
      }
    }
  }
  if (best_out < 0) return ready + duration; // no copy engine: as the classic model
  const double end = best + duration;
  for (int res : {best_out, best_in}) {
    table_.reserve(res, best, end);
    tentative_.push_back({res, best, end});
  }
  for (int res : links) {
    table_.reserve(res, best, end);
    tentative_.push_back({res, best, end});
  }
  return end;
}

// The earliest start every resource agrees on: each pushes it to its next gap long enough; repeat until none
// moves it (each step only moves it later, past a booked interval, so this ends).
double InputArrival::earliest_common_start(int out_engine, int in_engine, const std::vector<int>& links,
                                           double ready, double duration) const {
  double start = ready;
  for (bool moved = true; moved;) {
    moved = false;
    for (int r = -2; r < static_cast<int>(links.size()); ++r) {
      const int res = r == -2 ? out_engine : r == -1 ? in_engine : links[static_cast<std::size_t>(r)];
      const double s = table_.earliest_start(res, start, duration);
      if (s > start) {
        start = s;
        moved = true;
      }
    }
  }
  return start;
}

} // namespace hs
