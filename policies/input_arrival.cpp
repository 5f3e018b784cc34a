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
  routes_.assign(n * n, nullptr);
  for (DeviceId a = 0; a < devices_; ++a)
    for (DeviceId b = 0; b < devices_; ++b)
      if (const Route* r = a != b ? p.route(a, b) : nullptr) {
        routes_[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)] = r;
        for (const auto& hop : r->hops)
          route_resources_[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)].push_back(
              link_base_ + link_direction(p, hop));
      }
  arrival_.resize(static_cast<std::size_t>(cost.graph().tensor_count()));
}

double InputArrival::transfer_time(TensorId t, DeviceId from, DeviceId to) const {
  if (from == to) return 0.0;
  const Tensor& tensor = cost_.graph().tensor(t);
  return transfer_seconds(routes_[static_cast<std::size_t>(from) * static_cast<std::size_t>(devices_) +
                                  static_cast<std::size_t>(to)],
                          tensor.bytes, tensor.comm_time ? *tensor.comm_time : -1.0);
}

double InputArrival::ready_time(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                                const std::vector<double>& finish, const Hopeless& hopeless) {
  return arrive(op, device, placed_on, finish, false, hopeless ? &hopeless : nullptr);
}

double InputArrival::commit(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                            const std::vector<double>& finish) {
  return arrive(op, device, placed_on, finish, true, nullptr);
}

double InputArrival::ready_lower_bound(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                                       const std::vector<double>& finish) const {
  if (!contention_) return data_ready_time(op, device, cost_, placed_on, finish);
  const Graph& g = cost_.graph();
  double ready = 0.0;
  for (TensorId t : g.op(op).inputs) {
    const auto pi = static_cast<std::size_t>(g.tensor(t).producer);
    const DeviceId from = placed_on[pi];
    if (from == device) {
      ready = std::max(ready, finish[pi]);
      continue;
    }
    // A booked transfer started at or after its producer's end, so it ends no sooner than this.
    const auto& known = arrival_[static_cast<std::size_t>(t)];
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const auto& a) { return a.first == device; });
    ready = std::max(ready, it != known.end() ? it->second : finish[pi] + transfer_time(t, from, device));
  }
  return ready;
}

double InputArrival::gather(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                            const std::vector<double>& finish) {
  const Graph& g = cost_.graph();
  inputs_.clear();
  for (TensorId t : g.op(op).inputs) {
    const auto pi = static_cast<std::size_t>(g.tensor(t).producer);
    inputs_.emplace_back(finish[pi], t);
  }
  std::sort(inputs_.begin(), inputs_.end());
  inputs_.erase(std::unique(inputs_.begin(), inputs_.end()), inputs_.end());
  double ready = 0.0;
  pending_.clear();
  for (const auto& [done, t] : inputs_) {
    const DeviceId from = placed_on[static_cast<std::size_t>(g.tensor(t).producer)];
    if (from == device) {
      ready = std::max(ready, done);
      continue;
    }
    const auto& known = arrival_[static_cast<std::size_t>(t)];
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const auto& a) { return a.first == device; });
    if (it != known.end())
      ready = std::max(ready, it->second);
    else
      pending_.push_back({done, t, from});
  }
  return ready;
}

const InputArrival::Trial* InputArrival::matching_trial(OpId op, DeviceId device) const {
  for (std::size_t i = 0; i < trial_count_; ++i)
    if (trials_[i].op == op && trials_[i].device == device && trials_[i].transfers == pending_)
      return &trials_[i];
  return nullptr;
}

double InputArrival::arrive(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                            const std::vector<double>& finish, bool keep, const Hopeless* hopeless) {
  if (!contention_) return data_ready_time(op, device, cost_, placed_on, finish);
  double ready = gather(op, device, placed_on, finish);
  if (hopeless && !pending_.empty() && (*hopeless)(ready)) return ready;
  const Trial* found = keep ? matching_trial(op, device) : nullptr;
  tentative_.clear();
  std::vector<double> ends_here;
  const std::vector<double>* ends = &ends_here;
  if (found) {
    tentative_ = found->bookings;
    ends = &found->ends;
  } else {
    if (!keep && trial_count_ == trials_.size()) trials_.emplace_back();
    Trial* trial = keep ? nullptr : &trials_[trial_count_++];
    std::vector<double>& out = trial ? trial->ends : ends_here;
    out.clear();
    double so_far = ready;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const PendingTransfer& p = pending_[i];
      // A trial's last transfer delays nothing after it, so it need not be booked only to be dropped.
      const Hold hold = keep ? Hold::reserve : i + 1 < pending_.size() ? Hold::tentative : Hold::none;
      so_far = std::max(so_far, out.emplace_back(book_transfer(p.tensor, p.from, device, p.ready, hold)));
      if (hopeless && i + 1 < pending_.size() && (*hopeless)(so_far)) {
        // Abandoned: the caller has no use for the rest, and a commit cannot reuse a part.
        --trial_count_;
        table_.drop_tentative();
        tentative_.clear();
        return so_far;
      }
    }
    if (trial) {
      trial->op = op;
      trial->device = device;
      trial->transfers = pending_;
      trial->bookings = tentative_;
      ends = &trial->ends;
    }
  }
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    ready = std::max(ready, (*ends)[i]);
    if (keep) arrival_[static_cast<std::size_t>(pending_[i].tensor)].emplace_back(device, (*ends)[i]);
  }
  if (keep && found)
    for (const Booking& b : tentative_)
      table_.reserve(b.resource, b.start, b.end);
  if (!keep) table_.drop_tentative();
  if (keep) trial_count_ = 0; // the timetables change: every trial is stale
  tentative_.clear();
  return ready;
}

double InputArrival::book_transfer(TensorId t, DeviceId from, DeviceId to, double ready, Hold hold) {
  const Tensor& tensor = cost_.graph().tensor(t);
  const double duration = transfer_time(t, from, to);
  if (tensor.comm_time || duration == kInfeasible) return ready + duration;
  const auto& links = route_resources_[static_cast<std::size_t>(from) * static_cast<std::size_t>(devices_) +
                                       static_cast<std::size_t>(to)];
  const auto& devices = cost_.platform().devices;
  const int outs = devices[static_cast<std::size_t>(from)].copy_engines;
  const int ins = devices[static_cast<std::size_t>(to)].copy_engines;
  // Each engine alone, and the route's links together, bound the common start from below; pairs are tried
  // in order of their bound and stop once no bound can beat the best start, which gives the same pair as
  // trying every one in (out, in) order: the first with the earliest common start.
  engine_bounds(out_base_[static_cast<std::size_t>(from)], outs, ready, duration, out_bounds_);
  engine_bounds(in_base_[static_cast<std::size_t>(to)], ins, ready, duration, in_bounds_);
  double route_bound = ready;
  link_starts_.clear();
  for (int res : links)
    route_bound =
        std::max(route_bound, link_starts_.emplace_back(table_.earliest_start(res, ready, duration)));
  double best = kInfeasible;
  int best_out = -1, best_in = -1, best_k = 0, best_j = 0;
  for (const EngineBound& o : out_bounds_) {
    if (!in_bounds_.empty() && std::max({o.start, in_bounds_.front().start, route_bound}) > best) break;
    for (const EngineBound& i : in_bounds_) {
      const double bound = std::max({o.start, i.start, route_bound});
      if (bound > best) break;
      if (bound == best && std::make_pair(o.index, i.index) >= std::make_pair(best_k, best_j)) continue;
      const double start =
          earliest_common_start({o.engine, o.start}, {i.engine, i.start}, links, bound, duration);
      if (start < best ||
          (start == best && std::make_pair(o.index, i.index) < std::make_pair(best_k, best_j))) {
        best = start;
        best_out = o.engine;
        best_in = i.engine;
        best_k = o.index;
        best_j = i.index;
      }
    }
  }
  if (best_out < 0) return ready + duration; // no copy engine: as the classic model
  const double end = best + duration;
  const auto hold_on = [&](int res) {
    if (hold == Hold::reserve) table_.reserve(res, best, end);
    if (hold == Hold::tentative) table_.reserve_tentative(res, best, end);
    tentative_.push_back({res, best, end});
  };
  hold_on(best_out);
  hold_on(best_in);
  for (int res : links)
    hold_on(res);
  return end;
}

void InputArrival::engine_bounds(int base, int count, double ready, double duration,
                                 std::vector<EngineBound>& bounds) const {
  bounds.clear();
  bool free_seen = false;
  for (int k = 0; k < count; ++k) {
    const int engine = base + k;
    // Engines never booked are interchangeable: keep only the first of them in each pool.
    if (k > 0 && table_.unused(engine) && table_.unused(engine - 1)) break;
    // So are engines with nothing booked after `ready`, for this transfer: the first of them stands for all.
    if (table_.free_from(engine, ready)) {
      if (free_seen) continue;
      free_seen = true;
    }
    bounds.push_back({table_.earliest_start(engine, ready, duration), k, engine});
  }
  std::sort(bounds.begin(), bounds.end());
}

// The earliest start every resource agrees on: each pushes it to its next gap long enough, in turn, until a
// whole round of them has agreed with it (each step only moves it later, past a booked interval, so this
// ends). A resource that agreed since the last move need not be asked again, nor one whose own earliest
// start (from the transfer's ready time, `link_starts_` for the links) is the start itself.
double InputArrival::earliest_common_start(std::pair<int, double> out_engine,
                                           std::pair<int, double> in_engine, const std::vector<int>& links,
                                           double ready, double duration) const {
  const int count = 2 + static_cast<int>(links.size());
  const auto resource = [&](int r) {
    return r == 0   ? out_engine
           : r == 1 ? in_engine
                    : std::make_pair(links[static_cast<std::size_t>(r - 2)],
                                     link_starts_[static_cast<std::size_t>(r - 2)]);
  };
  double start = ready;
  for (int r = 0, agreed = 0; agreed < count; r = (r + 1) % count) {
    const auto [res, own_start] = resource(r);
    const double s = own_start == start ? start : table_.earliest_start(res, start, duration);
    if (s > start) {
      start = s;
      agreed = 1;
    } else {
      ++agreed;
    }
  }
  return start;
}

} // namespace hs
