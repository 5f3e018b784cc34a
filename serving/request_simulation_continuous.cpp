// Continuous batching (Orca) and prefill and decode on different devices (DistServe): the running set,
// its KV-cache budget, and a split tenant's prefill batches and KV-cache transfers.
#include "serving/request_simulation_state.hpp"
#include "sim/error.hpp"

#include <algorithm>

namespace hs::serving::detail {

// Waiting requests that join the running set: up to max_batch and while their KV caches fit the budget, each
// reserving its prompt and all its tokens (Orca's reservation; kv_policy paged: iteration_plan).
std::size_t Simulation::joiners(std::size_t t) const {
  const TenantState& s = state_[t];
  const std::deque<Request>& q = waiting(t);
  const BatchingSpec& b = specs_[t].batching;
  const std::size_t most = std::min(q.size(), static_cast<std::size_t>(b.max_batch) - s.running.size());
  if (b.kv_memory <= 0) return most;
  for (std::size_t i = 0; i < most; ++i) // alone it does not fit: it would wait for ever
    if (kv_need(t, q[i]) > b.kv_memory)
      throw InputError(o_.config_file,
                       "tenants[" + std::to_string(t) + "] ('" + specs_[t].name + "').batching.kv_memory",
                       "a request of seq " + std::to_string(prompt(t, q[i])) + " generating " +
                           std::to_string(q[i].generated + q[i].tokens) + " tokens needs a KV cache of " +
                           std::to_string(static_cast<long long>(kv_need(t, q[i]))) + " bytes, above it");
  std::size_t n = 0;
  const auto need = [&](const Request& r) { return b.kv_paged ? kv_step(t, r) : kv_need(t, r); };
  double used = s.kv_used;
  if (b.kv_paged) {
    used = 0.0;
    for (const auto& r : s.running)
      used += kv_step(t, r);
  }
  for (; n < most && used + need(q[n]) <= b.kv_memory; ++n)
    used += need(q[n]);
  return n;
}

// vLLM's paged KV cache (Kwon et al., SOSP 2023) with recompute preemption: each running request holds the
// cache of its context, one token more after each step; when the next step's caches would exceed the
// budget, the newest running requests are preempted (their cache freed; they return to the head of the
// queue and recompute their context in a prefill when they rejoin), and nobody joins in that iteration.
std::pair<std::size_t, std::size_t> Simulation::iteration_plan(std::size_t t) const {
  const TenantState& s = state_[t];
  const BatchingSpec& b = specs_[t].batching;
  if (!b.kv_paged) return {0, joiners(t)};
  double need = 0.0;
  for (const auto& r : s.running)
    need += kv_step(t, r);
  std::size_t preempted = 0;
  while (need > b.kv_memory && s.running.size() - preempted > 1)
    need -= kv_step(t, s.running[s.running.size() - ++preempted]);
  return {preempted, preempted ? 0 : joiners(t)};
}

// One iteration of continuous batching (Orca, OSDI 2022): waiting requests join the running set up to
// max_batch, run their prefill (a split tenant's ran on its prefill devices already), and every member then
// takes one decode step.
void Simulation::start_iteration(std::size_t t, double now) {
  TenantState& s = state_[t];
  std::deque<Request>& q = waiting(t);
  const auto [preempted, joiners] = iteration_plan(t);
  TenantStats& st = result_.tenants[t];
  for (std::size_t i = 0; i < preempted; ++i) { // newest first, so the oldest is at the head
    Request& r = s.running.back();
    s.kv_used -= r.kv;
    r.kv = 0.0;
    r.recompute = r.generated;
    q.push_front(r);
    s.running.pop_back();
    ++st.kv_preemptions;
  }
  const int seq = batch_seq(t, q, joiners, s.running, s.running.size());
  if (joiners < q.size() &&
      s.running.size() + joiners < static_cast<std::size_t>(specs_[t].batching.max_batch))
    ++st.kv_held_back; // room in the batch, not in memory
  for (std::size_t i = 0; i < joiners; ++i) {
    s.running.push_back(q.front());
    Request& r = s.running.back();
    if (r.generated == 0) (split(t) ? r.decode_start : r.start) = now;
    if (r.recompute) st.kv_recomputed_tokens += static_cast<std::uint64_t>(prompt(t, r) + r.recompute);
    r.kv = specs_[t].batching.kv_paged ? 0.0 : kv_need(t, r);
    s.kv_used += r.kv;
    q.pop_front();
  }
  if (specs_[t].batching.kv_paged) { // every member's cache after this step
    s.kv_used = 0.0;
    for (auto& r : s.running)
      s.kv_used += (r.kv = kv_step(t, r));
  }
  st.kv_peak = std::max(st.kv_peak, s.kv_used);
  const ServiceRecord& step =
      service_.record(t, ServicePart::DecodeStep, static_cast<int>(s.running.size()), seq);
  const ServiceRecord* prefill =
      joiners && !split(t) ? &service_.record(t, ServicePart::Prefill, static_cast<int>(joiners), seq)
                           : nullptr;
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
  occupy(t, both, now, seconds, true, static_cast<int>(s.running.size()), SpanKind::Iteration);
  s.in_flight = true;
  events_.push(Event{now + seconds, order_++, EventKind::Done, t, 0});
}

void Simulation::finish_iteration(std::size_t t, double now) {
  TenantState& s = state_[t];
  s.in_flight = false;
  for (auto& r : s.running) {
    ++r.generated;
    if (--r.tokens == 0) {
      complete(t, r, now);
      s.kv_used -= r.kv;
    }
  }
  s.running.erase(
      std::remove_if(s.running.begin(), s.running.end(), [](const Request& r) { return r.tokens == 0; }),
      s.running.end());
}

// A split tenant's prefill: up to max_batch waiting requests' prompts in one batch on its prefill devices,
// one batch at a time (DistServe's prefill instance).
void Simulation::start_prefill(std::size_t t, double now, const ServiceRecord& r) {
  TenantState& s = state_[t];
  const std::size_t n = std::min(s.queue.size(), static_cast<std::size_t>(specs_[t].batching.max_batch));
  std::vector<Request> members(s.queue.begin(), s.queue.begin() + static_cast<std::ptrdiff_t>(n));
  s.queue.erase(s.queue.begin(), s.queue.begin() + static_cast<std::ptrdiff_t>(n));
  for (auto& q : members)
    q.start = now;
  const double scale = specs_[t].exponential_service ? exponential_unit(rng_) : 1.0;
  account(t, r, scale);
  occupy(t, r, now, r.seconds * scale, true, static_cast<int>(n), SpanKind::Prefill);
  s.prefilling = true;
  const std::uint64_t id = next_batch_++;
  batches_.emplace(id, std::move(members));
  events_.push(Event{now + r.seconds * scale, order_++, EventKind::PrefillDone, t, id});
}

// The prefill's requests send their KV caches (every layer's keys and values of the prompt) to the decode
// devices one after another over the route, as the engines time a transfer on an idle route; a request
// joins the decode pool's queue when its cache has arrived.
void Simulation::send_kv(std::size_t t, double now, std::uint64_t batch) {
  TenantState& s = state_[t];
  s.prefilling = false;
  const auto it = batches_.find(batch);
  for (Request& r : it->second) {
    r.prefill_end = now;
    const double from = std::max(now, s.link_free);
    s.link_free = from + service_.kv_transfer_seconds(t, service_.kv_bytes_per_token(t) * prompt(t, r));
    events_.push(Event{s.link_free, order_++, EventKind::KvArrived, t, r.id});
    sending_.emplace(r.id, r);
  }
  batches_.erase(it);
}

} // namespace hs::serving::detail
