#include "policies/input_arrival.hpp"

#include <algorithm>

namespace hs {

namespace {
int total_copy_engines(const Platform& p) {
  int n = 0;
  for (const auto& d : p.devices)
    n += d.copy_engines;
  return n;
}
} // namespace

InputArrival::InputArrival(const CostModel& cost, bool contention)
    : cost_(cost), contention_(contention), devices_(cost.platform().device_count()),
      table_(total_copy_engines(cost.platform()) + 2 * static_cast<int>(cost.platform().links.size())) {
  const Platform& p = cost.platform();
  int next = 0;
  for (const auto& d : p.devices) {
    copy_base_.push_back(next);
    next += d.copy_engines;
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
  const auto& source = cost_.platform().devices[static_cast<std::size_t>(from)];
  double best = kInfeasible;
  int best_engine = -1;
  for (int k = 0; k < source.copy_engines; ++k) {
    const int engine = copy_base_[static_cast<std::size_t>(from)] + k;
    // The earliest start every resource agrees on: each pushes it to its next gap long enough; repeat until
    // none moves it (each step only moves it later, past a booked interval, so this ends).
    double start = ready;
    for (bool moved = true; moved;) {
      moved = false;
      for (int r = -1; r < static_cast<int>(links.size()); ++r) {
        const int res = r < 0 ? engine : links[static_cast<std::size_t>(r)];
        const double s = table_.earliest_start(res, start, duration);
        if (s > start) {
          start = s;
          moved = true;
        }
      }
    }
    if (start < best) {
      best = start;
      best_engine = engine;
    }
  }
  if (best_engine < 0) return ready + duration; // no copy engine: as the classic model
  const double end = best + duration;
  table_.reserve(best_engine, best, end);
  tentative_.push_back({best_engine, best, end});
  for (int res : links) {
    table_.reserve(res, best, end);
    tentative_.push_back({res, best, end});
  }
  return end;
}

} // namespace hs
