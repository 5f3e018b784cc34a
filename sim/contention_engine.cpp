#include "sim/contention_engine.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace hs {


namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// An activity is complete when what is left would take less than this share of the current time.
constexpr double kRelativeTolerance = 1e-12;
constexpr double kAbsoluteTolerance = 1e-15; // seconds

int resource_of(const Link& l, LinkId id, bool forward) {
  return 2 * id + (l.sharing == Sharing::SplitDuplex && !forward ? 1 : 0);
}
} // namespace

ContentionEvaluator::ContentionEvaluator(const CostModel& cost, const Scenario& scenario) : cost_(cost) {
  const Platform& p = cost.platform();
  devices_ = p.device_count();
  capacity_.assign(2 * p.links.size(), 0.0);
  for (std::size_t l = 0; l < p.links.size(); ++l)
    capacity_[2 * l] = capacity_[2 * l + 1] = p.links[l].bandwidth;
  const auto n = static_cast<std::size_t>(devices_);
  route_resources_.resize(n * n);
  route_latency_.assign(n * n, 0.0);
  route_weight_.assign(n * n, 1.0);
  for (DeviceId a = 0; a < devices_; ++a)
    for (DeviceId b = 0; b < devices_; ++b) {
      const Route* r = a != b ? p.route(a, b) : nullptr;
      if (!r) continue;
      const auto i = static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b);
      for (const auto& hop : r->hops)
        route_resources_[i].push_back(resource_of(p.links[static_cast<std::size_t>(hop.link)], hop.link, hop.forward));
      route_latency_[i] = r->latency;
      route_weight_[i] = r->latency > 0 ? 1.0 / r->latency : 1.0;
    }
  time_factor_ = scenario.op_time_factors(cost.graph().op_count());
  for (const auto& prof : scenario.devices)
    for (const auto& st : prof.steps)
      profile_events_.push_back({st.at, prof.index, -1, st.availability});
  for (const auto& prof : scenario.links)
    for (const auto& st : prof.steps) {
      profile_events_.push_back({st.at, -1, 2 * prof.index, st.availability});
      profile_events_.push_back({st.at, -1, 2 * prof.index + 1, st.availability});
    }
  std::stable_sort(profile_events_.begin(), profile_events_.end(),
                   [](const ProfileEvent& x, const ProfileEvent& y) { return x.at < y.at; });
  copy_queue_.resize(n);
  pending_to_.assign(n, -1);
  res_left_.assign(capacity_.size(), 0.0);
  res_weight_.assign(capacity_.size(), 0.0);
  res_unfixed_.assign(capacity_.size(), 0);
}

const Execution& ContentionEvaluator::run(const Plan& plan) {
  simulate(plan);
  sort_transfers(result_.transfers);
  fill_analytic_energy(result_, plan, cost_);
  return result_;
}

double ContentionEvaluator::simulate(const Plan& plan) {
  const Graph& g = cost_.graph();
  const Platform& p = cost_.platform();
  const auto n = static_cast<std::size_t>(g.op_count());
  const auto nd = static_cast<std::size_t>(devices_);
  plan_ = &plan;
  result_.engine = "evaluator";
  result_.makespan = 0.0;
  result_.ops.assign(n, OpRun{});
  result_.transfers.clear();
  missing_inputs_.resize(n);
  for (std::size_t o = 0; o < n; ++o)
    missing_inputs_[o] = static_cast<int>(g.ops[o].inputs.size());
  stream_base_.assign(nd + 1, 0);
  slot_device_.clear();
  for (std::size_t d = 0; d < nd; ++d) {
    stream_base_[d] = slot_device_.size();
    for (std::size_t s = 0; s < plan.queues[d].size(); ++s)
      slot_device_.push_back(static_cast<DeviceId>(d));
  }
  stream_base_[nd] = slot_device_.size();
  const std::size_t slots = slot_device_.size();
  cursor_.assign(slots, 0);
  running_op_.assign(slots, -1);
  remaining_.assign(slots, 0.0);
  active_on_device_.assign(nd, 0);
  device_availability_.assign(nd, 1.0);
  resource_availability_.assign(capacity_.size(), 1.0);
  transfers_.clear();
  waiters_.clear();
  for (std::size_t d = 0; d < nd; ++d) {
    copy_queue_[d].clear();
    copy_engines_free_.resize(nd);
    copy_engines_free_[d] = p.devices[d].copy_engines;
  }
  copy_queue_head_.assign(nd, 0);
  flows_.clear();
  timed_.clear();
  check_slots_.clear();
  for (std::size_t s = 0; s < slots; ++s)
    check_slots_.push_back(s);
  ops_left_ = n;
  profile_next_ = 0;
  rates_dirty_ = false;
  live_.assign(nd, 0.0);
  for (std::size_t o = 0; o < n; ++o)
    live_[static_cast<std::size_t>(plan.device[o])] += g.ops[o].param_bytes; // resident all run long
  peak_ = live_;
  const auto nt = static_cast<std::size_t>(g.tensor_count());
  producer_uses_.assign(nt, 0);
  tensor_transfers_begin_.assign(nt, 0);
  tensor_transfers_end_.assign(nt, 0);

  double now = 0.0;
  const auto heap_later = [](const auto& x, const auto& y) { return x.first > y.first; };
  for (;;) {
    while (profile_next_ < profile_events_.size() && profile_events_[profile_next_].at <= now) {
      const auto& ev = profile_events_[profile_next_++];
      if (ev.device >= 0)
        device_availability_[static_cast<std::size_t>(ev.device)] = ev.availability;
      else
        resource_availability_[static_cast<std::size_t>(ev.resource)] = ev.availability;
      rates_dirty_ = true;
    }
    start_ready_streams(now);
    start_copy_engines(now);
    if (ops_left_ == 0) {
      record_peaks();
      break;
    }
    if (rates_dirty_) share_bandwidth();

    double dt = kInf;
    for (std::size_t s = 0; s < slots; ++s) {
      if (running_op_[s] < 0) continue;
      const auto d = static_cast<std::size_t>(slot_device_[s]);
      const double rate = device_availability_[d] / active_on_device_[d];
      if (rate > 0) dt = std::min(dt, remaining_[s] / rate);
    }
    for (const Flow& f : flows_) {
      if (!f.flowing)
        dt = std::min(dt, f.latency_end - now);
      else if (f.rate > 0)
        dt = std::min(dt, f.remaining / f.rate);
    }
    if (!timed_.empty()) dt = std::min(dt, timed_.front().first - now);
    if (profile_next_ < profile_events_.size()) dt = std::min(dt, profile_events_[profile_next_].at - now);
    if (dt == kInf)
      throw PlanError("the evaluator stopped with " + std::to_string(ops_left_) +
                      " ops not run (a stream waits for an input that never comes)");
    dt = std::max(dt, 0.0);
    if (dt > 0) record_peaks(); // the instant `now` is complete: its frees and allocations are all in
    now += dt;
    const double tolerance = kRelativeTolerance * now + kAbsoluteTolerance;

    for (std::size_t s = 0; s < slots; ++s) {
      if (running_op_[s] < 0) continue;
      const auto d = static_cast<std::size_t>(slot_device_[s]);
      remaining_[s] -= device_availability_[d] / active_on_device_[d] * dt;
    }
    for (Flow& f : flows_)
      if (f.flowing) f.remaining -= f.rate * dt;

    // Completions, in a fixed order: transfers, then ops, then explicit-cost edges.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < flows_.size(); ++i) {
      Flow& f = flows_[i];
      if (!f.flowing && f.latency_end <= now + tolerance) {
        f.flowing = true;
        rates_dirty_ = true;
      }
      const bool done = f.flowing && (f.remaining <= 0 || (f.rate > 0 && f.remaining <= f.rate * tolerance));
      if (done) {
        rates_dirty_ = true;
        ++copy_engines_free_[static_cast<std::size_t>(transfers_[f.transfer].from)];
        transfer_finished(f.transfer, now);
      } else {
        flows_[kept++] = f;
      }
    }
    flows_.resize(kept);
    for (std::size_t s = 0; s < slots; ++s) {
      if (running_op_[s] < 0) continue;
      const auto d = static_cast<std::size_t>(slot_device_[s]);
      const double rate = device_availability_[d] / active_on_device_[d];
      if (remaining_[s] <= rate * tolerance) op_finished(s, now);
    }
    while (!timed_.empty() && timed_.front().first <= now + tolerance) {
      std::pop_heap(timed_.begin(), timed_.end(), heap_later);
      const std::size_t t = timed_.back().second;
      timed_.pop_back();
      transfer_finished(t, now);
    }
  }
  return result_.makespan;
}

void ContentionEvaluator::start_ready_streams(double now) {
  const Plan& plan = *plan_;
  while (!check_slots_.empty()) {
    const std::size_t s = check_slots_.back();
    check_slots_.pop_back();
    if (running_op_[s] >= 0) continue;
    const DeviceId d = slot_device_[s];
    const auto& queue = plan.queues[static_cast<std::size_t>(d)][s - stream_base_[static_cast<std::size_t>(d)]];
    if (cursor_[s] == queue.size()) continue;
    const OpId o = queue[cursor_[s]];
    const auto oi = static_cast<std::size_t>(o);
    if (missing_inputs_[oi] != 0) continue;
    running_op_[s] = o;
    remaining_[s] = cost_.op_time(o, d, plan.pstate[oi]) * time_factor_[oi];
    result_.ops[oi].start = now;
    ++active_on_device_[static_cast<std::size_t>(d)];
    // Outputs live on the producer's device from its start; the workspace while it runs.
    const Op& op = cost_.graph().op(o);
    double bytes = op.workspace_bytes;
    for (TensorId t : op.outputs)
      bytes += cost_.graph().tensor(t).bytes;
    live_[static_cast<std::size_t>(d)] += bytes;
  }
}

void ContentionEvaluator::start_copy_engines(double now) {
  const Graph& g = cost_.graph();
  for (std::size_t d = 0; d < copy_queue_.size(); ++d) {
    auto& queue = copy_queue_[d];
    while (copy_engines_free_[d] > 0 && copy_queue_head_[d] < queue.size()) {
      const std::size_t t = queue[copy_queue_head_[d]++];
      --copy_engines_free_[d];
      Transfer& tr = transfers_[t];
      tr.start = now;
      live_[static_cast<std::size_t>(tr.to)] += g.tensor(tr.tensor).bytes; // the copy exists from the start
      const auto route = static_cast<std::size_t>(tr.from) * static_cast<std::size_t>(devices_) +
                         static_cast<std::size_t>(tr.to);
      // A route of no links moves data at once, after its latency.
      const double bytes = route_resources_[route].empty() ? 0.0 : g.tensor(tr.tensor).bytes;
      flows_.push_back({t, route, route_weight_[route], now + route_latency_[route], bytes});
    }
  }
}

void ContentionEvaluator::op_finished(std::size_t slot, double now) {
  const Plan& plan = *plan_;
  const Graph& g = cost_.graph();
  const OpId o = running_op_[slot];
  const DeviceId dev = slot_device_[slot];
  result_.ops[static_cast<std::size_t>(o)].end = now;
  result_.makespan = std::max(result_.makespan, now);
  running_op_[slot] = -1;
  --active_on_device_[static_cast<std::size_t>(dev)];
  ++cursor_[slot];
  check_slots_.push_back(slot);
  --ops_left_;
  release_inputs(o, dev);
  // One transfer per (tensor, destination device), queued in order of first consumer, as the replay does.
  for (TensorId t : g.op(o).outputs) {
    const Tensor& tensor = g.tensor(t);
    const std::size_t first_new = transfers_.size();
    for (OpId c : tensor.consumers) {
      const DeviceId to = plan.device[static_cast<std::size_t>(c)];
      if (to == dev || pending_to_[static_cast<std::size_t>(to)] >= 0) continue;
      pending_to_[static_cast<std::size_t>(to)] = static_cast<int>(transfers_.size());
      transfers_.push_back({t, dev, to, 0, 0, now, 0});
    }
    tensor_transfers_begin_[static_cast<std::size_t>(t)] = static_cast<std::uint32_t>(first_new);
    tensor_transfers_end_[static_cast<std::size_t>(t)] = static_cast<std::uint32_t>(transfers_.size());
    // The producer's copy is needed by its distinct local readers and by each outgoing transfer.
    int uses = static_cast<int>(transfers_.size() - first_new);
    for (std::size_t k = 0; k < tensor.consumers.size(); ++k) {
      const OpId c = tensor.consumers[k];
      if (plan.device[static_cast<std::size_t>(c)] == dev &&
          std::find(tensor.consumers.begin(), tensor.consumers.begin() + static_cast<std::ptrdiff_t>(k), c) ==
              tensor.consumers.begin() + static_cast<std::ptrdiff_t>(k))
        ++uses;
    }
    // A graph output (no consumer) lives to the end.
    producer_uses_[static_cast<std::size_t>(t)] = tensor.consumers.empty() ? -1 : uses;
    for (std::size_t i = first_new; i < transfers_.size(); ++i) {
      Transfer& tr = transfers_[i];
      tr.waiters_begin = static_cast<std::uint32_t>(waiters_.size());
      for (OpId c : tensor.consumers)
        if (plan.device[static_cast<std::size_t>(c)] == tr.to) waiters_.push_back(c);
      tr.waiters_end = static_cast<std::uint32_t>(waiters_.size());
      for (std::uint32_t w = tr.waiters_begin; w < tr.waiters_end; ++w)
        if (std::find(waiters_.begin() + tr.waiters_begin, waiters_.begin() + w, waiters_[w]) == waiters_.begin() + w)
          ++tr.readers_left;
      pending_to_[static_cast<std::size_t>(tr.to)] = -1;
      if (tensor.comm_time) {
        live_[static_cast<std::size_t>(tr.to)] += tensor.bytes;
        timed_.emplace_back(now + *tensor.comm_time, i);
        std::push_heap(timed_.begin(), timed_.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
      } else {
        copy_queue_[static_cast<std::size_t>(dev)].push_back(i);
      }
    }
    for (OpId c : tensor.consumers)
      if (plan.device[static_cast<std::size_t>(c)] == dev) input_arrived(c);
  }
}

void ContentionEvaluator::transfer_finished(std::size_t t, double now) {
  const Transfer& tr = transfers_[t];
  const auto ti = static_cast<std::size_t>(tr.tensor);
  if (--producer_uses_[ti] == 0) live_[static_cast<std::size_t>(tr.from)] -= cost_.graph().tensor(tr.tensor).bytes;
  result_.transfers.push_back({tr.tensor, tr.from, tr.to, cost_.graph().tensor(tr.tensor).bytes, tr.start, now});
  result_.makespan = std::max(result_.makespan, now);
  for (std::uint32_t w = tr.waiters_begin; w < tr.waiters_end; ++w)
    input_arrived(waiters_[w]);
}

// An op's end frees its workspace, and each input copy on its device whose last use it was.
void ContentionEvaluator::release_inputs(OpId o, DeviceId dev) {
  const Graph& g = cost_.graph();
  const Op& op = g.op(o);
  const auto d = static_cast<std::size_t>(dev);
  live_[d] -= op.workspace_bytes;
  for (std::size_t k = 0; k < op.inputs.size(); ++k) {
    const TensorId t = op.inputs[k];
    if (std::find(op.inputs.begin(), op.inputs.begin() + static_cast<std::ptrdiff_t>(k), t) !=
        op.inputs.begin() + static_cast<std::ptrdiff_t>(k))
      continue; // the same tensor read twice is one use
    const auto ti = static_cast<std::size_t>(t);
    const double bytes = g.tensor(t).bytes;
    if (plan_->device[static_cast<std::size_t>(g.tensor(t).producer)] == dev) {
      if (--producer_uses_[ti] == 0) live_[d] -= bytes;
      continue;
    }
    for (std::uint32_t i = tensor_transfers_begin_[ti]; i < tensor_transfers_end_[ti]; ++i)
      if (transfers_[i].to == dev) {
        if (--transfers_[i].readers_left == 0) live_[d] -= bytes;
        break;
      }
  }
}

void ContentionEvaluator::record_peaks() {
  for (std::size_t d = 0; d < live_.size(); ++d)
    if (live_[d] > peak_[d]) peak_[d] = live_[d];
}

void ContentionEvaluator::input_arrived(OpId c) {
  const auto ci = static_cast<std::size_t>(c);
  if (--missing_inputs_[ci] == 0)
    check_slots_.push_back(stream_base_[static_cast<std::size_t>(plan_->device[ci])] +
                           static_cast<std::size_t>(plan_->stream[ci]));
}

// Weighted max-min fairness by progressive filling: the resource with the smallest fair share per unit of
// weight saturates first, fixing the rates of its flows; repeat on what is left (SimGrid's lmm solve).
// Only the resources some flowing flow crosses take part, visited in index order (ties go to the lowest,
// as a scan of every resource would), and each round scans only the flows not yet fixed, in flows_ order.
void ContentionEvaluator::share_bandwidth() {
  rates_dirty_ = false;
  touched_.clear();
  unfixed_flows_.clear();
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    f.rate = 0.0;
    if (!f.flowing) continue;
    unfixed_flows_.push_back(i);
    for (int r : route_resources_[f.route]) {
      const auto ri = static_cast<std::size_t>(r);
      if (res_unfixed_[ri]++ == 0) {
        touched_.push_back(r);
        res_left_[ri] = capacity_[ri] * resource_availability_[ri];
        res_weight_[ri] = 0.0;
      }
      res_weight_[ri] += f.weight;
    }
  }
  std::sort(touched_.begin(), touched_.end());
  while (!unfixed_flows_.empty()) {
    double share = kInf;
    int bottleneck = -1;
    for (int r : touched_) {
      const auto ri = static_cast<std::size_t>(r);
      if (res_unfixed_[ri] > 0) {
        const double s = std::max(res_left_[ri], 0.0) / res_weight_[ri];
        if (s < share) {
          share = s;
          bottleneck = r;
        }
      }
    }
    if (bottleneck < 0) break; // flows on no resource (an empty route): none here, routes have hops
    std::size_t kept = 0;
    for (const std::size_t i : unfixed_flows_) {
      Flow& f = flows_[i];
      const auto& route = route_resources_[f.route];
      if (std::find(route.begin(), route.end(), bottleneck) == route.end()) {
        unfixed_flows_[kept++] = i;
        continue;
      }
      f.rate = f.weight * share;
      for (int r : route) {
        const auto ri = static_cast<std::size_t>(r);
        res_left_[ri] -= f.rate;
        res_weight_[ri] -= f.weight;
        --res_unfixed_[ri];
      }
    }
    unfixed_flows_.resize(kept);
  }
  for (int r : touched_)
    res_unfixed_[static_cast<std::size_t>(r)] = 0;
}

Execution run_contention(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  ContentionEvaluator evaluator(cost, scenario);
  return evaluator.run(plan);
}

} // namespace hs
