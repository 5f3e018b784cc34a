#include "sim/contention_engine.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace hs {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// An activity is complete when it is due within this share of the current time.
constexpr double kRelativeTolerance = 1e-12;
constexpr double kAbsoluteTolerance = 1e-15; // seconds

// Transfers are recorded as they start, so they are already in start order: only the transfers that start
// at one instant need sorting into the canonical order.
void sort_started_transfers(std::vector<TransferRun>& transfers) {
  for (auto first = transfers.begin(); first != transfers.end();) {
    auto last = first + 1;
    while (last != transfers.end() && last->start == first->start)
      ++last;
    if (last - first > 1)
      std::sort(first, last,
                [](const TransferRun& a, const TransferRun& b) { return canonical_transfer_less(a, b); });
    first = last;
  }
}
} // namespace

const Execution& ContentionEvaluator::run(const Plan& plan, bool canonical_order) {
  simulate(plan);
  if (canonical_order) sort_started_transfers(result_.transfers);
  fill_energy_from_usage(result_, *platform_, busy_seconds_, pstate_extra_, link_bytes_);
  return result_;
}

double ContentionEvaluator::simulate(const Plan& plan) {
  reset(plan);
  double now = 0.0;
  double ops_next = kInf; // the earliest of device_next_
  const auto heap_later = [](const auto& x, const auto& y) { return x.first > y.first; };
  for (;;) {
    if (profile_next_ < profile_events_.size()) apply_profile_events(now);
    if (!check_slots_.empty()) start_ready_streams(now);
    if (!copy_ready_.empty() || !freed_.empty()) start_copy_engines(now);
    if (ops_left_ == 0) {
      record_peaks();
      break;
    }
    if (rates_dirty_) reshare_bandwidth(now);
    if (!reshare_devices_.empty()) { // only a re-share moves a device's next op end
      for (const std::size_t d : reshare_devices_) {
        reshare_mark_[d] = 0;
        reshare_device(d, now);
      }
      reshare_devices_.clear();
      ops_next = kInf;
      for (const double t : device_next_)
        ops_next = std::min(ops_next, t);
    }
    const double next = next_event(ops_next);
    if (next == kInf)
      throw PlanError("the evaluator stopped with " + std::to_string(ops_left_) +
                      " ops not run (a stream waits for an input that never comes)");
    if (next > now) {
      record_peaks(); // the instant `now` is complete: its frees and allocations are all in
      now = next;
    }
    const double due = now + kRelativeTolerance * now + kAbsoluteTolerance;

    // Completions, in a fixed order: transfers, then ops, then explicit-cost edges.
    if (flow_next_ <= due) complete_flows(now, due);
    // Ops due now end in stream-slot order, whatever order they started in (completing flows starts none).
    if (ops_next <= due) {
      due_slots_.clear();
      for (std::size_t d = 0; d < device_next_.size(); ++d) {
        if (device_next_[d] > due) continue;
        for_each_running(d, [&](std::size_t s) {
          if (slot_finish_[s] <= due) due_slots_.push_back(s);
        });
      }
      for (const std::size_t s : due_slots_)
        op_finished(s, now);
    }
    while (!timed_.empty() && timed_.front().first <= due) {
      std::pop_heap(timed_.begin(), timed_.end(), heap_later);
      const std::size_t t = timed_.back().second;
      timed_.pop_back();
      transfer_finished(t, now);
    }
    wake_issued(due);
  }
  return result_.makespan;
}

// The earliest of the next op end (`ops_next`), flow end, explicit-cost edge, issue and scenario step.
double ContentionEvaluator::next_event(double ops_next) const {
  double next = std::min(flow_next_, ops_next);
  if (!timed_.empty()) next = std::min(next, timed_.front().first);
  if (!issue_waits_.empty()) next = std::min(next, issue_waits_.front().first);
  if (profile_next_ < profile_events_.size()) next = std::min(next, profile_events_[profile_next_].at);
  return next;
}

// Stream heads their host has issued by `due` are checked again.
void ContentionEvaluator::wake_issued(double due) {
  while (!issue_waits_.empty() && issue_waits_.front().first <= due) {
    std::pop_heap(issue_waits_.begin(), issue_waits_.end(), issue_later);
    check_slots_.push_back(issue_waits_.back().second);
    issue_waits_.pop_back();
  }
}

// Scenario steps due by `now`: a device's or link direction's availability changes.
void ContentionEvaluator::apply_profile_events(double now) {
  while (profile_next_ < profile_events_.size() && profile_events_[profile_next_].at <= now) {
    const auto& ev = profile_events_[profile_next_++];
    if (ev.device >= 0) {
      device_availability_[static_cast<std::size_t>(ev.device)] = ev.availability;
      mark_ready(reshare_devices_, reshare_mark_, static_cast<std::size_t>(ev.device));
    } else {
      double& availability = resource_availability_[static_cast<std::size_t>(ev.resource)];
      links_off_nominal_ += (ev.availability != 1.0 ? 1 : 0) - (availability != 1.0 ? 1 : 0);
      availability = ev.availability;
      rates_dirty_ = true;
    }
  }
}

// Flows whose latency ends now start sharing bandwidth; flows due now end, in start order.
void ContentionEvaluator::complete_flows(double now, double due) {
  flow_next_ = kInf;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    bool done = false;
    if (f.finish <= due) { // a flow in latency has finish == latency_end
      if (f.flowing) {
        done = true;
      } else {
        start_flowing(f, now);
        done = f.remaining <= 0;
      }
    }
    if (done) {
      stop_flowing(f);
      const auto from = static_cast<std::size_t>(transfers_[f.transfer].from);
      const auto to = static_cast<std::size_t>(transfers_[f.transfer].to);
      freed_.push_back({from, to, copy_queue_[from].size()});
      transfer_finished(f.transfer, now);
      continue;
    }
    flow_next_ = std::min(flow_next_, f.finish);
    if (kept != i) flows_[kept] = f;
    ++kept;
  }
  flows_.resize(kept);
}

// The streams of a device share its speed equally: bring every running op on it up to date, then give it
// the new share and a new predicted finish.
void ContentionEvaluator::reshare_device(std::size_t d, double now) {
  const int active = active_on_device_[d];
  const double rate = active > 0 ? device_availability_[d] / active : 0.0;
  double next = kInf;
  for_each_running(d, [&](std::size_t s) {
    remaining_[s] = std::max(0.0, remaining_[s] - slot_rate_[s] * (now - slot_updated_[s]));
    slot_updated_[s] = now;
    slot_rate_[s] = rate;
    slot_finish_[s] = rate > 0 ? now + remaining_[s] / rate : kInf;
    next = std::min(next, slot_finish_[s]);
  });
  device_next_[d] = next;
}

// A flow that shares no link direction with another flowing one runs at its route's bottleneck and changes
// nobody's rate, which is what max-min gives it: only a flow that meets others needs a re-share.
void ContentionEvaluator::start_flowing(Flow& f, double now) {
  f.flowing = true;
  f.updated = now;
  mix_state_ = sharing_states_.with(mix_state_, static_cast<std::uint32_t>(f.route));
  bool alone = !rates_dirty_;
  for (int r : route_resources_[f.slot])
    alone = (flowing_on_[static_cast<std::size_t>(r)]++ == 0 &&
             resource_availability_[static_cast<std::size_t>(r)] == 1.0) &&
            alone;
  if (!alone) {
    f.finish = kInf; // until the re-share gives it a rate
    rates_dirty_ = true;
    return;
  }
  f.rate = route_alone_rate_[f.slot];
  f.finish = f.rate == kInf || f.remaining <= 0 ? now : now + f.remaining / f.rate;
  if (f.rate == kInf) f.rate = 0.0;
}

void ContentionEvaluator::stop_flowing(const Flow& f) {
  if (!f.flowing) return;
  mix_state_ = sharing_states_.without(mix_state_, static_cast<std::uint32_t>(f.route));
  bool shared = false;
  for (int r : route_resources_[f.slot])
    shared = shared || --flowing_on_[static_cast<std::size_t>(r)] > 0;
  if (shared) rates_dirty_ = true;
}

void ContentionEvaluator::reshare_bandwidth(double now) {
  rates_dirty_ = false;
  const auto& mix = sharing_states_.mix(mix_state_);
  if (mix.empty()) return;
  const bool nominal = links_off_nominal_ == 0;
  const double* rates = nominal ? sharing_states_.rates(mix_state_) : nullptr;
  if (!rates) {
    mix_rates_.clear();
    if (nominal && mix.size() == 1 && mix[0].flows == 1) {
      mix_rates_.push_back(route_alone_rate_[slot_of(mix[0].route)]); // alone: its bottleneck
    } else {
      // Flows on one route share a fate: one flow of their summed weight stands for them all.
      sharing_flows_.clear();
      for (const auto& rc : mix)
        sharing_flows_.push_back(
            {&route_resources_[slot_of(rc.route)], rc.flows * route_weight_[slot_of(rc.route)]});
      sharing_.solve(sharing_flows_, resource_availability_);
      for (std::size_t k = 0; k < mix.size(); ++k)
        mix_rates_.push_back(sharing_flows_[k].rate / mix[k].flows);
    }
    if (nominal) sharing_states_.store(mix_state_, mix_rates_);
    rates = mix_rates_.data();
  }
  for (std::size_t k = 0; k < mix.size(); ++k)
    route_rate_[slot_of(mix[k].route)] = rates[k];
  flow_next_ = kInf;
  for (Flow& f : flows_) {
    // A flow whose rate stays keeps its predicted finish: bringing it up to date would only round it.
    if (f.flowing && route_rate_[f.slot] != f.rate) {
      f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated));
      f.updated = now;
      const double rate = route_rate_[f.slot];
      f.rate = rate == kInf ? 0.0 : rate;
      f.finish = rate == kInf || f.remaining <= 0 ? now : rate > 0 ? now + f.remaining / rate : kInf;
    }
    flow_next_ = std::min(flow_next_, f.finish);
  }
}

void ContentionEvaluator::start_ready_streams(double now) {
  const Plan& plan = *plan_;
  while (!check_slots_.empty()) {
    const std::size_t s = check_slots_.back();
    check_slots_.pop_back();
    if (running_op_[s] >= 0) continue;
    const DeviceId d = slot_device_[s];
    const auto di = static_cast<std::size_t>(d);
    const auto& queue = *slot_queue_[s];
    if (cursor_[s] == queue.size()) continue;
    const OpId o = queue[cursor_[s]];
    const auto oi = static_cast<std::size_t>(o);
    if (op_wait_[oi].missing != 0) continue;
    const auto& issued = result_.issued;       // per op, when its host issued it; empty: at once
    if (!issued.empty() && issued[oi] > now) { // its host has not issued it yet
      issue_waits_.emplace_back(issued[oi], s);
      std::push_heap(issue_waits_.begin(), issue_waits_.end(), issue_later);
      continue;
    }
    running_op_[s] = o;
    running_bits_[s >> 6] |= std::uint64_t{1} << (s & 63);
    remaining_[s] = op_seconds(o, d, plan.pstate[oi]) * time_factor_[oi];
    slot_updated_[s] = now;
    slot_rate_[s] = 0.0;
    result_.ops[oi].start = now;
    if (active_on_device_[di]++ == 0) busy_since_[di] = now;
    mark_ready(reshare_devices_, reshare_mark_, di);
    // Outputs live on the producer's device from its start; the workspace while it runs.
    allocate(di, graph_->alloc_at_start(oi));
  }
}

void ContentionEvaluator::op_finished(std::size_t slot, double now) {
  const Plan& plan = *plan_;
  const OpId o = running_op_[slot];
  const auto oi = static_cast<std::size_t>(o);
  const DeviceId dev = slot_device_[slot];
  const auto di = static_cast<std::size_t>(dev);
  result_.ops[oi].end = now;
  result_.makespan = std::max(result_.makespan, now);
  running_op_[slot] = -1;
  running_bits_[slot >> 6] &= ~(std::uint64_t{1} << (slot & 63));
  slot_finish_[slot] = kInf;
  if (--active_on_device_[di] == 0) busy_seconds_[di] += now - busy_since_[di];
  mark_ready(reshare_devices_, reshare_mark_, di);
  if (plan.pstate[oi] != 0) {
    const auto& states = platform_->devices[di].pstates;
    pstate_extra_[di] +=
        (now - result_.ops[oi].start) *
        (states[static_cast<std::size_t>(plan.pstate[oi])].busy_watts - states.front().busy_watts);
  }
  ++cursor_[slot];
  check_slots_.push_back(slot);
  --ops_left_;
  release_inputs(o, dev);
  for (TensorId t : graph_->outputs(oi))
    send_output(static_cast<std::size_t>(t), dev, now);
}

// An op's end frees its workspace, and each input copy on its device whose last use it was (the
// producer's copy for a local input, the transfer's for another's); an update's, and the copies updates
// read, wait for the device's last update to end.
void ContentionEvaluator::release_inputs(OpId o, DeviceId dev) {
  const auto oi = static_cast<std::size_t>(o);
  const auto d = static_cast<std::size_t>(dev);
  const FlatGraph& g = *graph_;
  const bool update = g.optimizer(oi);
  release(d, g.workspace_bytes(oi), update);
  const auto inputs = g.inputs(oi);
  const auto entries = g.input_entries(oi);
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const double bytes = g.tensor_bytes(static_cast<std::size_t>(inputs[j]));
    if (--uses_[use_of_[entries[j]]] == 0) release(d, bytes, !held_entry_.empty() && held_entry_[entries[j]]);
  }
  if (update && --step_ops_left_[d] == 0) { // the step's end frees what it held
    live_[d] -= held_[d];
    held_[d] = 0.0;
  }
}

void ContentionEvaluator::record_peaks() {
  for (const std::size_t d : grown_) {
    if (live_[d] > peak_[d]) peak_[d] = live_[d];
    grew_[d] = 0;
  }
  grown_.clear();
}

Execution run_contention(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  ContentionEvaluator evaluator(cost, scenario);
  return evaluator.run(plan);
}

} // namespace hs
