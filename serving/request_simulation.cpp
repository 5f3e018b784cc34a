// The event loop, the dispatcher and whole-graph batches (request_simulation_state.hpp has the state).
#include "serving/request_simulation_state.hpp"
#include "sim/error.hpp"

#include <algorithm>

namespace hs::serving::detail {

Simulation::Simulation(const std::vector<TenantSpec>& tenants, ServiceSource& service,
                       ArrivalSource& arrivals, const SimulationOptions& o)
    : specs_(tenants), service_(service), arrivals_(arrivals), o_(o),
      rng_(Rng(o.seed ^ 0x5E2F1CE5A3B1C7D9ULL).next()), state_(tenants.size()),
      occupancy_(service.device_count()) {
  result_.tenants.resize(tenants.size());
  result_.devices.resize(service.device_count());
  if (o.on_span)
    occupancy_.on_span = [this](std::size_t d, double from, double until) {
      span_.device = d;
      span_.start = from;
      span_.end = until;
      o_.on_span(span_);
    };
}

ServingResult Simulation::run() {
  std::optional<Arrival> next = arrivals_.next();
  double now = 0.0;
  while (next || !events_.empty()) {
    if (!events_.empty() && (!next || events_.top().time <= next->time)) {
      const Event e = events_.top();
      events_.pop();
      now = e.time;
      handle(e);
    } else {
      now = next->time;
      arrive(*next);
      next = arrivals_.next();
    }
    ++result_.events;
    dispatch(now);
  }
  result_.horizon = now;
  return std::move(result_);
}

void Simulation::handle(const Event& e) {
  switch (e.kind) {
  case EventKind::Done:
    return finish(e.tenant, e.time, e.batch);
  case EventKind::PrefillDone:
    return send_kv(e.tenant, e.time, e.batch);
  case EventKind::KvArrived: {
    const auto it = sending_.find(e.batch);
    it->second.kv_arrived = e.time;
    state_[e.tenant].decoding.push_back(it->second);
    sending_.erase(it);
    return;
  }
  case EventKind::Wake:
    return;
  }
}

void Simulation::arrive(const Arrival& a) {
  Request r;
  r.arrival = a.time;
  r.id = next_id_++;
  r.seq = a.seq;
  r.tokens = a.tokens ? a.tokens : service_.default_tokens(a.tenant);
  TenantState& s = state_[a.tenant];
  s.queue.push_back(r);
  ++result_.tenants[a.tenant].arrived;
  if (s.queue.size() == 1) timer_for_head(a.tenant, a.time);
}

// A dynamic batcher wakes when its oldest request's max_delay runs out (a stale wake-up finds nothing).
void Simulation::timer_for_head(std::size_t t, double now) {
  const BatchingSpec& b = specs_[t].batching;
  if (b.mode != BatchingMode::Dynamic || state_[t].queue.empty()) return;
  const double at = state_[t].queue.front().arrival + b.max_delay;
  if (at > now) events_.push(Event{at, order_++, EventKind::Wake, t, 0});
}

bool Simulation::ready(std::size_t t, double now) const {
  const TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  if (b.mode == BatchingMode::Continuous) return !waiting(t).empty() || !s.running.empty();
  if (s.queue.empty()) return false;
  if (b.mode == BatchingMode::None) return true;
  return s.queue.size() >= static_cast<std::size_t>(b.max_batch) ||
         now >= s.queue.front().arrival + b.max_delay;
}

// A batch runs at its longest member's shape (shorter ones are padded, as batched kernels need).
int Simulation::batch_seq(std::size_t t, const std::deque<Request>& waiting, std::size_t n,
                          const std::vector<Request>& running, std::size_t kept) const {
  const auto shape = [&](const Request& r) { return r.recompute ? prompt(t, r) + r.recompute : r.seq; };
  int seq = 0;
  for (std::size_t i = 0; i < std::min(n, waiting.size()); ++i)
    seq = std::max(seq, shape(waiting[i]));
  for (std::size_t i = 0; i < std::min(kept, running.size()); ++i)
    seq = std::max(seq, shape(running[i]));
  return seq;
}

// Seconds a request would take alone on idle devices, from its first batch's start.
double Simulation::alone_seconds(std::size_t t, int seq) {
  if (!split(t)) return service_.record(t, ServicePart::Whole, 1, seq).seconds;
  Request one;
  one.seq = seq;
  one.tokens = service_.default_tokens(t);
  return service_.record(t, ServicePart::Prefill, 1, seq).seconds +
         service_.kv_transfer_seconds(t, service_.kv_bytes_per_token(t) * prompt(t, one)) +
         one.tokens * service_.record(t, ServicePart::DecodeStep, 1, seq).seconds;
}

void Simulation::admit(std::size_t t, double now) {
  TenantState& s = state_[t];
  bool dropped = false;
  while (!s.queue.empty()) {
    const Request& head = s.queue.front();
    if (now + alone_seconds(t, head.seq) <= head.arrival + specs_[t].slo) break;
    drop(t, head);
    s.queue.pop_front();
    dropped = true;
  }
  if (dropped) timer_for_head(t, now);
}

// Whether the batch can start now on its devices; if not, a wake-up when it can (unless one is pending).
bool Simulation::fits_now(std::size_t t, const ServiceRecord& r, const ServiceRecord* prefill, double now) {
  double at = occupancy_.earliest_start(r, now, held_whole(t));
  if (prefill) at = std::max(at, occupancy_.earliest_start(*prefill, now, true));
  if (at <= now + 1e-12 * std::max(1.0, now)) return true;
  if (state_[t].wake != at) {
    state_[t].wake = at;
    events_.push(Event{at, order_++, EventKind::Wake, t, 0});
  }
  return false;
}

std::pair<double, double> Simulation::key(std::size_t t, Action a, double now, const ServiceRecord& r) const {
  const TenantState& s = state_[t];
  const std::deque<Request>& q = a == Action::Iteration ? waiting(t) : s.queue;
  const double head = q.empty() ? s.running.front().arrival : q.front().arrival;
  switch (o_.discipline) {
  case Discipline::Priority:
    return {-static_cast<double>(specs_[t].priority), head};
  case Discipline::Edf:
    return {head + specs_[t].slo, head};
  case Discipline::LeastSlack:
    return {head + specs_[t].slo - now - r.seconds, head};
  case Discipline::Fifo:
    break;
  }
  return {head, 0.0};
}

// Whether tenant t can start `a` now; fills `c` with what it would start.
bool Simulation::candidate(std::size_t t, Action a, double now, Candidate& c) {
  const TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  const ServiceRecord* prefill = nullptr;
  c = {t, a, nullptr};
  if (a == Action::Prefill) {
    if (s.prefilling || s.queue.empty()) return false;
    const std::size_t n = std::min(s.queue.size(), static_cast<std::size_t>(b.max_batch));
    c.record =
        &service_.record(t, ServicePart::Prefill, static_cast<int>(n), batch_seq(t, s.queue, n, {}, 0));
  } else if (a == Action::Iteration) {
    if (s.in_flight || !ready(t, now)) return false;
    const auto [preempted, joiners] = iteration_plan(t);
    const std::size_t kept = s.running.size() - preempted;
    const int seq = batch_seq(t, waiting(t), joiners, s.running, kept);
    c.record = &service_.record(t, ServicePart::DecodeStep, static_cast<int>(kept + joiners), seq);
    if (joiners && !split(t))
      prefill = &service_.record(t, ServicePart::Prefill, static_cast<int>(joiners), seq);
  } else {
    if (!ready(t, now)) return false;
    const std::size_t n = std::min(s.queue.size(), static_cast<std::size_t>(b.max_batch));
    c.record = &service_.record(t, ServicePart::Whole, static_cast<int>(n), batch_seq(t, s.queue, n, {}, 0));
  }
  return fits_now(t, *c.record, prefill, now);
}

// Starts batches until no tenant has one ready on free devices, best first by the discipline (ties to
// the tenant listed first; a split tenant's prefill before its decode iteration).
void Simulation::dispatch(double now) {
  for (;;) {
    Candidate best{specs_.size(), Action::Batch, nullptr}, c{};
    std::pair<double, double> best_key;
    for (std::size_t t = 0; t < specs_.size(); ++t) {
      if (o_.admission && !(split(t) ? state_[t].prefilling : state_[t].in_flight)) admit(t, now);
      const bool continuous = specs_[t].batching.mode == BatchingMode::Continuous;
      for (const Action a : {Action::Prefill, continuous ? Action::Iteration : Action::Batch}) {
        if (a == Action::Prefill && !split(t)) continue;
        if (!candidate(t, a, now, c)) continue;
        const auto k = key(t, a, now, *c.record);
        if (best.tenant == specs_.size() || k < best_key) {
          best = c;
          best_key = k;
        }
      }
    }
    if (best.tenant == specs_.size()) return;
    if (best.action == Action::Iteration) start_iteration(best.tenant, now);
    if (best.action == Action::Batch) start_batch(best.tenant, now, *best.record);
    if (best.action == Action::Prefill) start_prefill(best.tenant, now, *best.record);
  }
}

void Simulation::occupy(std::size_t t, const ServiceRecord& r, double now, double seconds, bool whole,
                        int requests, SpanKind kind) {
  span_ = DeviceSpan{0, t, 0.0, 0.0, requests, kind};
  occupancy_.occupy(r, now, seconds, whole, result_.devices);
}

void Simulation::start_batch(std::size_t t, double now, const ServiceRecord& r) {
  TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  const std::size_t n = std::min(s.queue.size(), static_cast<std::size_t>(b.max_batch));
  // When the batch could have started: ready (full, or its oldest request's delay ran out) and its devices
  // and its tenant free. Starting later than that is a batcher bug, counted for the tests.
  double ready_at = s.queue.front().arrival + (b.mode == BatchingMode::Dynamic ? b.max_delay : 0.0);
  if (s.queue.size() >= static_cast<std::size_t>(b.max_batch))
    ready_at = std::min(ready_at, s.queue[static_cast<std::size_t>(b.max_batch) - 1].arrival);
  const double could = occupancy_.earliest_start(r, ready_at, held_whole(t));
  TenantStats& st = result_.tenants[t];
  if (now > could + 1e-9 * std::max(1.0, now)) ++st.late_batches;
  std::vector<Request> members(s.queue.begin(), s.queue.begin() + static_cast<std::ptrdiff_t>(n));
  s.queue.erase(s.queue.begin(), s.queue.begin() + static_cast<std::ptrdiff_t>(n));
  for (auto& q : members)
    q.start = now;
  ++st.batches;
  st.batched_requests += n;
  st.largest_batch = std::max(st.largest_batch, static_cast<int>(n));
  const double scale = specs_[t].exponential_service ? exponential_unit(rng_) : 1.0;
  account(t, r, scale);
  occupy(t, r, now, r.seconds * scale, held_whole(t), static_cast<int>(n), SpanKind::Batch);
  const std::uint64_t id = next_batch_++;
  batches_.emplace(id, std::move(members));
  events_.push(Event{now + r.seconds * scale, order_++, EventKind::Done, t, id});
  timer_for_head(t, now);
}

void Simulation::finish(std::size_t t, double now, std::uint64_t batch) {
  if (specs_[t].batching.mode == BatchingMode::Continuous) return finish_iteration(t, now);
  const auto it = batches_.find(batch);
  for (const auto& r : it->second)
    complete(t, r, now);
  batches_.erase(it);
}

} // namespace hs::serving::detail

namespace hs::serving {

ServingResult simulate_serving(const std::vector<TenantSpec>& tenants, ServiceSource& service,
                               ArrivalSource& arrivals, const SimulationOptions& options) {
  return detail::Simulation(tenants, service, arrivals, options).run();
}

} // namespace hs::serving
