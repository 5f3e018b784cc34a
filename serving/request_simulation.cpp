#include "serving/request_simulation.hpp"

#include "serving/device_occupancy.hpp"
#include "sim/error.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <ostream>
#include <queue>

namespace hs::serving {
namespace {

struct Request {
  double arrival = 0.0;
  std::uint64_t id = 0;
  int seq = 0;
  int tokens = 0;  // left to generate (continuous batching)
  double kv = 0.0; // bytes of KV cache it holds while in the running set
  double start = 0.0;
};

struct Event {
  double time;
  std::uint64_t order; // ties in creation order: the run does not depend on the heap's internals
  bool done;           // a batch ends; otherwise a batching timer or a device becoming free
  std::size_t tenant;
  std::uint64_t batch; // the batch that ends (whole-graph batches: a tenant may have several in flight)
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.order > b.order;
  }
};

struct TenantState {
  std::deque<Request> queue;
  std::vector<Request> running; // continuous batching: the running set
  double kv_used = 0.0;         // continuous batching: the running set's KV cache
  bool in_flight = false;       // continuous batching: an iteration runs (one at a time)
  double wake = -1.0;           // the pending wake-up for its devices, not to push it twice
};

class Simulation {
public:
  Simulation(const std::vector<TenantSpec>& tenants, ServiceSource& service, ArrivalSource& arrivals,
             const SimulationOptions& o)
      : specs_(tenants), service_(service), arrivals_(arrivals), o_(o),
        rng_(Rng(o.seed ^ 0x5E2F1CE5A3B1C7D9ULL).next()), state_(tenants.size()),
        occupancy_(service.device_count()) {
    result_.tenants.resize(tenants.size());
    result_.devices.resize(service.device_count());
  }
  ServingResult run();

private:
  void arrive(const Arrival& a);
  void finish(std::size_t t, double now, std::uint64_t batch);
  void dispatch(double now);
  bool ready(std::size_t t, double now) const;
  void admit(std::size_t t, double now);
  int batch_seq(const TenantState& s, std::size_t n) const;
  std::size_t joiners(std::size_t t) const;
  double kv_need(std::size_t t, const Request& r) const {
    return service_.kv_bytes_per_token(t) * ((r.seq > 0 ? r.seq : service_.default_seq(t)) + r.tokens);
  }
  bool held_whole(std::size_t t) const {
    return specs_[t].batching.mode == BatchingMode::Continuous || specs_[t].exponential_service;
  }
  bool fits_now(std::size_t t, const ServiceRecord& r, const ServiceRecord* prefill, double now);
  std::pair<double, double> key(std::size_t t, double now, const ServiceRecord& r) const;
  void start_batch(std::size_t t, double now, const ServiceRecord& r);
  void start_iteration(std::size_t t, double now);
  void account(std::size_t t, const ServiceRecord& r, double scale);
  void complete(std::size_t t, const Request& r, double now);
  void drop(std::size_t t, const Request& r);
  void timer_for_head(std::size_t t, double now);
  void note_progress(double now);

  const std::vector<TenantSpec>& specs_;
  ServiceSource& service_;
  ArrivalSource& arrivals_;
  const SimulationOptions& o_;
  Rng rng_;
  std::vector<TenantState> state_;
  DeviceOccupancy occupancy_;
  std::map<std::uint64_t, std::vector<Request>> batches_; // whole-graph batches in flight, by id
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::uint64_t order_ = 0, next_id_ = 0, finished_ = 0, next_batch_ = 0;
  ServingResult result_;
};

ServingResult Simulation::run() {
  std::optional<Arrival> next = arrivals_.next();
  double now = 0.0;
  while (next || !events_.empty()) {
    if (!events_.empty() && (!next || events_.top().time <= next->time)) {
      const Event e = events_.top();
      events_.pop();
      now = e.time;
      if (e.done) finish(e.tenant, now, e.batch);
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
  if (at > now) events_.push(Event{at, order_++, false, t, 0});
}

bool Simulation::ready(std::size_t t, double now) const {
  const TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  if (b.mode == BatchingMode::Continuous) return !s.queue.empty() || !s.running.empty();
  if (s.queue.empty()) return false;
  if (b.mode == BatchingMode::None) return true;
  return s.queue.size() >= static_cast<std::size_t>(b.max_batch) ||
         now >= s.queue.front().arrival + b.max_delay;
}

// Waiting requests that join the running set: up to max_batch and while their KV caches fit the budget, each
// reserving its prompt and all its tokens (Orca's reservation; vLLM pages and preempts instead).
std::size_t Simulation::joiners(std::size_t t) const {
  const TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  const std::size_t most = std::min(s.queue.size(), static_cast<std::size_t>(b.max_batch) - s.running.size());
  if (b.kv_memory <= 0) return most;
  std::size_t n = 0;
  for (double used = s.kv_used; n < most && used + kv_need(t, s.queue[n]) <= b.kv_memory; ++n)
    used += kv_need(t, s.queue[n]);
  if (n > 0 || !s.running.empty() || most == 0) return n;
  const Request& head = s.queue.front(); // alone it does not fit: it would wait for ever
  throw InputError(o_.config_file,
                   "tenants[" + std::to_string(t) + "] ('" + specs_[t].name + "').batching.kv_memory",
                   "a request of seq " + std::to_string(head.seq ? head.seq : service_.default_seq(t)) +
                       " generating " + std::to_string(head.tokens) + " tokens needs a KV cache of " +
                       std::to_string(static_cast<long long>(kv_need(t, head))) + " bytes, above it");
}

// A batch runs at its longest member's shape (shorter ones are padded, as batched kernels need).
int Simulation::batch_seq(const TenantState& s, std::size_t n) const {
  int seq = 0;
  for (std::size_t i = 0; i < std::min(n, s.queue.size()); ++i)
    seq = std::max(seq, s.queue[i].seq);
  for (const auto& r : s.running)
    seq = std::max(seq, r.seq);
  return seq;
}

void Simulation::admit(std::size_t t, double now) {
  TenantState& s = state_[t];
  bool dropped = false;
  while (!s.queue.empty()) {
    const Request& head = s.queue.front();
    const double alone = service_.record(t, ServicePart::Whole, 1, head.seq).seconds;
    if (now + alone <= head.arrival + specs_[t].slo) break;
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
    events_.push(Event{at, order_++, false, t, 0});
  }
  return false;
}

std::pair<double, double> Simulation::key(std::size_t t, double now, const ServiceRecord& r) const {
  const TenantState& s = state_[t];
  const double head = s.queue.empty() ? s.running.front().arrival : s.queue.front().arrival;
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

// Starts batches until no tenant has one ready on free devices, best first by the discipline (ties to
// the tenant listed first).
void Simulation::dispatch(double now) {
  for (;;) {
    std::size_t best = specs_.size();
    std::pair<double, double> best_key;
    const ServiceRecord* best_record = nullptr;
    for (std::size_t t = 0; t < specs_.size(); ++t) {
      if (state_[t].in_flight) continue;
      if (o_.admission) admit(t, now);
      if (!ready(t, now)) continue;
      const TenantState& s = state_[t];
      const BatchingSpec& b = specs_[t].batching;
      const ServiceRecord* r = nullptr;
      const ServiceRecord* prefill = nullptr;
      if (b.mode == BatchingMode::Continuous) {
        const std::size_t joiners = this->joiners(t);
        const int seq = batch_seq(s, joiners);
        r = &service_.record(t, ServicePart::DecodeStep, static_cast<int>(s.running.size() + joiners), seq);
        if (joiners) prefill = &service_.record(t, ServicePart::Prefill, static_cast<int>(joiners), seq);
      } else {
        const std::size_t n = std::min(s.queue.size(), static_cast<std::size_t>(b.max_batch));
        r = &service_.record(t, ServicePart::Whole, static_cast<int>(n), batch_seq(s, n));
      }
      if (!fits_now(t, *r, prefill, now)) continue;
      const auto k = key(t, now, *r);
      if (best == specs_.size() || k < best_key) {
        best = t;
        best_key = k;
        best_record = r;
      }
    }
    if (best == specs_.size()) return;
    if (specs_[best].batching.mode == BatchingMode::Continuous)
      start_iteration(best, now);
    else
      start_batch(best, now, *best_record);
  }
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
  occupancy_.occupy(r, now, r.seconds * scale, held_whole(t), result_.devices);
  const std::uint64_t id = next_batch_++;
  batches_.emplace(id, std::move(members));
  events_.push(Event{now + r.seconds * scale, order_++, true, t, id});
  timer_for_head(t, now);
}

// One iteration of continuous batching (Orca, OSDI 2022): waiting requests join the running set up to
// max_batch, run their prefill, and every member then takes one decode step.
void Simulation::start_iteration(std::size_t t, double now) {
  TenantState& s = state_[t];
  const std::size_t joiners = this->joiners(t);
  const int seq = batch_seq(s, joiners);
  TenantStats& st = result_.tenants[t];
  if (joiners < s.queue.size() &&
      s.running.size() + joiners < static_cast<std::size_t>(specs_[t].batching.max_batch))
    ++st.kv_held_back; // room in the batch, not in memory
  for (std::size_t i = 0; i < joiners; ++i) {
    s.running.push_back(s.queue.front());
    s.running.back().start = now;
    s.running.back().kv = kv_need(t, s.running.back());
    s.kv_used += s.running.back().kv;
    s.queue.pop_front();
  }
  st.kv_peak = std::max(st.kv_peak, s.kv_used);
  const ServiceRecord& step =
      service_.record(t, ServicePart::DecodeStep, static_cast<int>(s.running.size()), seq);
  const ServiceRecord* prefill =
      joiners ? &service_.record(t, ServicePart::Prefill, static_cast<int>(joiners), seq) : nullptr;
  ++st.batches;
  st.batched_requests += s.running.size();
  st.largest_batch = std::max(st.largest_batch, static_cast<int>(s.running.size()));
  const double scale = specs_[t].exponential_service ? exponential_unit(rng_) : 1.0;
  const double seconds = (step.seconds + (prefill ? prefill->seconds : 0.0)) * scale;
  account(t, step, scale);
  // The step and the joiners' prefill hold the union of their devices for the whole iteration.
  ServiceRecord both;
  both.devices = step.devices;
  if (prefill)
    for (std::size_t d : prefill->devices)
      if (std::find(both.devices.begin(), both.devices.end(), d) == both.devices.end())
        both.devices.push_back(d);
  if (prefill) account(t, *prefill, scale);
  occupancy_.occupy(both, now, seconds, true, result_.devices);
  s.in_flight = true;
  events_.push(Event{now + seconds, order_++, true, t, 0});
}

void Simulation::account(std::size_t t, const ServiceRecord& r, double scale) {
  for (std::size_t d = 0; d < r.busy.size(); ++d) {
    result_.devices[d].busy += r.busy[d] * scale;
    result_.devices[d].dynamic_joules += r.dynamic_joules[d] * scale;
    result_.tenants[t].dynamic_joules += r.dynamic_joules[d] * scale;
  }
  result_.link_dynamic_joules += r.link_dynamic_joules * scale;
  result_.tenants[t].dynamic_joules += r.link_dynamic_joules * scale;
}

void Simulation::finish(std::size_t t, double now, std::uint64_t batch) {
  TenantState& s = state_[t];
  if (specs_[t].batching.mode != BatchingMode::Continuous) {
    const auto it = batches_.find(batch);
    for (const auto& r : it->second)
      complete(t, r, now);
    batches_.erase(it);
    return;
  }
  s.in_flight = false;
  for (auto& r : s.running)
    if (--r.tokens == 0) {
      complete(t, r, now);
      s.kv_used -= r.kv;
    }
  s.running.erase(
      std::remove_if(s.running.begin(), s.running.end(), [](const Request& r) { return r.tokens == 0; }),
      s.running.end());
}

void Simulation::complete(std::size_t t, const Request& r, double now) {
  TenantStats& st = result_.tenants[t];
  const double latency = now - r.arrival;
  ++st.served;
  st.latency.add(latency);
  st.queue_sum += r.start - r.arrival;
  st.queueing.add(r.start - r.arrival);
  st.service_sum += now - r.start;
  const bool met = latency <= specs_[t].slo;
  if (met) ++st.met;
  if (o_.on_finish) o_.on_finish(t, r.arrival, r.start, now);
  if (o_.requests) {
    char line[160];
    std::snprintf(line, sizeof line, ",%.9g,%.9g,%.9g,%.9g,%s\n", r.arrival, r.start, now, latency,
                  met ? "met" : "missed");
    *o_.requests << r.id << ',' << specs_[t].name << line;
  }
  note_progress(now);
}

void Simulation::drop(std::size_t t, const Request& r) {
  ++result_.tenants[t].dropped;
  if (o_.requests) {
    char line[64];
    std::snprintf(line, sizeof line, ",%.9g,,,,dropped\n", r.arrival);
    *o_.requests << r.id << ',' << specs_[t].name << line;
  }
  note_progress(r.arrival);
}

void Simulation::note_progress(double now) {
  if (!o_.progress || (++finished_ & ((1u << 17) - 1)) != 0) return;
  *o_.progress << "serve: " << finished_
               << (o_.expected ? " of " + std::to_string(o_.expected) : std::string())
               << " requests done, simulated time " << now << " s\n";
}

} // namespace

ServingResult simulate_serving(const std::vector<TenantSpec>& tenants, ServiceSource& service,
                               ArrivalSource& arrivals, const SimulationOptions& options) {
  return Simulation(tenants, service, arrivals, options).run();
}

} // namespace hs::serving
