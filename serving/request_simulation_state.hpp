#pragma once
// The request-level simulation's state and steps, shared by its source files (request_simulation.cpp:
// the event loop, dispatch and whole-graph batches; request_simulation_continuous.cpp: continuous batching
// and the prefill/decode split; request_simulation_records.cpp: what a finished request adds to the
// stats). Internal to serving/: request_simulation.hpp is the interface.
#include "serving/device_occupancy.hpp"
#include "serving/request_simulation.hpp"

#include <deque>
#include <map>
#include <queue>

namespace hs::serving::detail {

struct Request {
  double arrival = 0.0;
  std::uint64_t id = 0;
  int seq = 0;
  int tokens = 0;    // left to generate (continuous batching)
  int generated = 0; // generated so far
  int recompute = 0; // generated before its latest preemption: its prefill recomputes them (0: none)
  double kv = 0.0;   // bytes of KV cache it holds while in the running set
  double start = 0.0;
  // A split prefill and decode: the prefill's end, the KV cache's arrival at the decode devices, and the
  // join of the decode batch (-1 until then).
  double prefill_end = -1.0, kv_arrived = -1.0, decode_start = -1.0;
};

enum class EventKind {
  Wake,        // a batching timer or a device becoming free
  Done,        // a batch (or an iteration) ends
  PrefillDone, // a split prefill's batch ends: its KV caches leave for the decode devices
  KvArrived,   // one request's KV cache reached the decode devices
};

struct Event {
  double time;
  std::uint64_t order; // ties in creation order: the run does not depend on the heap's internals
  EventKind kind;
  std::size_t tenant;
  std::uint64_t batch; // the batch that ends, or the request whose KV cache arrives
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.order > b.order;
  }
};

struct TenantState {
  std::deque<Request> queue;    // waiting for a batch (a split tenant: for its prefill)
  std::deque<Request> decoding; // a split tenant: KV cache arrived, waiting to join the decode batch
  std::vector<Request> running; // continuous batching: the running set
  double kv_used = 0.0;         // continuous batching: the running set's KV cache
  bool in_flight = false;       // continuous batching: an iteration runs (one at a time)
  bool prefilling = false;      // a split tenant: a prefill batch runs (one at a time)
  double link_free = 0.0;       // a split tenant: when its route carries no KV cache
  double wake = -1.0;           // the pending wake-up for its devices, not to push it twice
};

// What the dispatcher may start for a tenant: a whole-graph batch, a continuous-batching iteration (a
// split tenant's decode iteration), or a split tenant's prefill batch.
enum class Action { Batch, Iteration, Prefill };

class Simulation {
public:
  Simulation(const std::vector<TenantSpec>& tenants, ServiceSource& service, ArrivalSource& arrivals,
             const SimulationOptions& o);
  ServingResult run();

private:
  struct Candidate {
    std::size_t tenant;
    Action action;
    const ServiceRecord* record;
  };
  void arrive(const Arrival& a);
  void handle(const Event& e);
  void finish(std::size_t t, double now, std::uint64_t batch);
  void finish_iteration(std::size_t t, double now);
  void dispatch(double now);
  bool candidate(std::size_t t, Action a, double now, Candidate& c);
  bool ready(std::size_t t, double now) const;
  void admit(std::size_t t, double now);
  double alone_seconds(std::size_t t, int seq);
  // The shape a batch runs at: its longest member's (its prompt, and the tokens generated before a
  // preemption, which its prefill recomputes), over `n` waiting requests and the first `kept` running.
  int batch_seq(std::size_t t, const std::deque<Request>& waiting, std::size_t n,
                const std::vector<Request>& running, std::size_t kept) const;
  std::size_t joiners(std::size_t t) const;
  // The next iteration: how many of the newest running requests a paged KV cache preempts, and how many
  // waiting requests join.
  std::pair<std::size_t, std::size_t> iteration_plan(std::size_t t) const;
  double kv_step(std::size_t t, const Request& r) const { // a paged cache after the next step
    return service_.kv_bytes_per_token(t) * (prompt(t, r) + r.generated + 1);
  }
  double kv_need(std::size_t t, const Request& r) const { // its whole cache: prompt and every token
    return service_.kv_bytes_per_token(t) * (prompt(t, r) + r.generated + r.tokens);
  }
  int prompt(std::size_t t, const Request& r) const { return r.seq > 0 ? r.seq : service_.default_seq(t); }
  bool split(std::size_t t) const { return !specs_[t].prefill_devices.empty(); }
  std::deque<Request>& waiting(std::size_t t) { return split(t) ? state_[t].decoding : state_[t].queue; }
  const std::deque<Request>& waiting(std::size_t t) const {
    return split(t) ? state_[t].decoding : state_[t].queue;
  }
  bool held_whole(std::size_t t) const {
    return specs_[t].batching.mode == BatchingMode::Continuous || specs_[t].exponential_service;
  }
  bool fits_now(std::size_t t, const ServiceRecord& r, const ServiceRecord* prefill, double now);
  std::pair<double, double> key(std::size_t t, Action a, double now, const ServiceRecord& r) const;
  void start_batch(std::size_t t, double now, const ServiceRecord& r);
  void start_iteration(std::size_t t, double now);
  void start_prefill(std::size_t t, double now, const ServiceRecord& r);
  void send_kv(std::size_t t, double now, std::uint64_t batch);
  void occupy(std::size_t t, const ServiceRecord& r, double now, double seconds, bool whole, int requests,
              SpanKind kind);
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
  std::map<std::uint64_t, std::vector<Request>> batches_; // whole-graph and prefill batches in flight, by id
  std::map<std::uint64_t, Request> sending_;              // KV caches on their way, by request id
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::uint64_t order_ = 0, next_id_ = 0, finished_ = 0, next_batch_ = 0;
  ServingResult result_;
  DeviceSpan span_; // the batch being given its devices (for on_span)
};

} // namespace hs::serving::detail
