#pragma once
// The contention-aware evaluator: an in-process fluid model of the SimGrid replay, fast enough for the
// inner loop of every planner and search.
//
// It models what the replay models, with the same rules:
// - a device stream runs its queue in order; an op starts once its inputs are on its device;
// - the streams of one device share its throughput equally (SimGrid's single-core host);
// - a transfer is taken, in FIFO order, by one of the source device's outgoing copy engines, then, in FIFO
//   order, by one of the destination's incoming engines; holding both, it waits its route's latency, then
//   shares the bandwidth of every link (each direction of a split-duplex link on its own) with the transfers
//   crossing it, by weighted max-min fairness with weight 1 / route latency (SimGrid's CM02 model:
//   `sharing_penalty` = route latency; sim/max_min_sharing.hpp);
// - textbook edges with an explicit `comm_time` take that time, with neither copy engine nor link;
// - scenarios apply: device and link availability profiles scale speed and bandwidth, noise scales ops.
//
// Each running op and transfer keeps its predicted finish time, updated only when its rate changes, so an
// event costs a scan of the few running activities. Copy engines bound how many transfers run at once, so
// each re-share is a small max-min problem. See docs/architecture.md for why this model rather than Sinnen
// & Sousa's edge scheduling, and results/contention/ for its measured agreement with the replay.
#include "sim/execution.hpp"
#include "sim/flat_graph.hpp"
#include "sim/issue_costs.hpp"
#include "sim/max_min_sharing.hpp"
#include "sim/scenario.hpp"
#include "sim/sharing_states.hpp"

#include <bit>
#include <cstdint>
#include <vector>

namespace hs {

// Reusable evaluator: holds its buffers, so repeated evaluations (a search's inner loop) do not allocate.
// One instance per thread.
class ContentionEvaluator {
public:
  explicit ContentionEvaluator(const CostModel& cost, const Scenario& scenario = {});

  // Evaluates plans of `cost`'s graph from now on: another graph (a rewrite) on the same platform object.
  // The platform's tables and the remembered sharing states are kept; the graph's are rebuilt.
  void rebind(const CostModel& cost);
  // The same for a graph given as flat arrays (a rewrite that built no Graph), with `op_times` its ops'
  // seconds [op][device] on this evaluator's platform at the nominal p-state. Both must outlive the runs.
  // The devices' issue overheads stay those of the last cost model bound.
  void rebind(const FlatGraph& graph, const std::vector<double>& op_times);

  // The timeline of `plan` (already valid: see validate_plan), with energy. Transfers are in the canonical
  // order (sort_transfers) unless `canonical_order` is false (then in start order, ties unbroken: cheaper,
  // for callers that only read makespan, energy and memory).
  const Execution& run(const Plan& plan, bool canonical_order = true);
  // Only the makespan.
  double makespan(const Plan& plan) { return simulate(plan); }
  // Peak bytes per device of the last run, by the same rules as memory_usage() (sim/memory.hpp), tracked
  // as the timeline unfolds instead of by sorting its events afterwards.
  const std::vector<double>& peak_memory() const { return peak_; }

private:
  struct Flow { // an active transfer
    std::size_t transfer;
    std::size_t route;    // from * n + to: the name sharing states know it by
    std::uint32_t slot;   // where its route's figures are (route_slot)
    double remaining;     // bytes, as of `updated`
    double updated = 0.0; // when `remaining` was last brought up to date
    double finish;        // predicted end at the current rate; while in latency, when the latency ends
    bool flowing = false;
    double rate = 0.0; // bytes/s while flowing
  };
  struct Transfer {
    TensorId tensor;
    DeviceId from, to;
    std::uint32_t waiters_begin, waiters_end;
    std::uint32_t run; // its entry in result_.transfers, recorded when it starts
    int readers_left;  // distinct consumers on `to` (its waiters)
  };

  double simulate(const Plan& plan);
  void reset(const Plan& plan);
  void bind_plan(const Plan& plan);
  void apply_profile_events(double now);
  void start_ready_streams(double now);
  double next_event(double ops_next) const;
  void wake_issued(double due);
  static bool issue_later(const std::pair<double, std::size_t>& x, const std::pair<double, std::size_t>& y) {
    return x.first > y.first;
  }
  void start_copy_engines(double now);
  void take_incoming_engine(std::size_t transfer, double now);
  void start_flow(std::size_t transfer, double now);
  void record_start(Transfer& tr, double bytes, double now);
  static void mark_ready(std::vector<std::size_t>& list, std::vector<char>& mark, std::size_t device) {
    if (mark[device]) return;
    mark[device] = 1;
    list.push_back(device);
  }
  void complete_flows(double now, double due);
  void op_finished(std::size_t slot, double now);
  void send_output(std::size_t tensor, DeviceId dev, double now);
  void queue_transfers(std::size_t first_new, std::size_t last_new, double now);
  void transfer_finished(std::size_t transfer, double now);
  void input_arrived(OpId consumer) {
    const auto ci = static_cast<std::size_t>(consumer);
    if (--op_wait_[ci].missing == 0) check_slots_.push_back(op_wait_[ci].slot);
  }
  void reshare_bandwidth(double now);
  void start_flowing(Flow& f, double now);
  void stop_flowing(const Flow& f);
  void reshare_device(std::size_t device, double now);
  void release_inputs(OpId op, DeviceId dev);
  // Only a device whose live bytes grew during an instant can have reached a new peak in it.
  void allocate(std::size_t device, double bytes) {
    live_[device] += bytes;
    if (!grew_[device]) {
      grew_[device] = 1;
      grown_.push_back(device);
    }
  }
  void record_peaks();
  // Frees a copy's or a workspace's bytes on `device`, or holds them there until the device's optimizer
  // step ends when `held` (memory_usage's rule).
  void release(std::size_t device, double bytes, bool held) {
    if (held && step_ops_left_[device] > 0)
      held_[device] += bytes;
    else
      live_[device] -= bytes;
  }
  bool source_copy_held(std::size_t tensor, DeviceId from) const;
  void bind_optimizer_step(const Plan& plan);

  void bind_graph(const FlatGraph& graph, const std::vector<double>& op_times);
  std::uint32_t route_slot(std::size_t route) { // finds the route's figures on first use
    const std::int32_t slot = route_slot_[route];
    return slot >= 0 ? static_cast<std::uint32_t>(slot) : add_route(route);
  }
  std::uint32_t add_route(std::size_t route);
  std::uint32_t slot_of(std::size_t route) const { // of a route a transfer has already taken
    return static_cast<std::uint32_t>(route_slot_[route]);
  }
  // CostModel::op_time(op, device, pstate), with the p-state speeds in a flat table.
  double op_seconds(OpId o, DeviceId d, int pstate) const {
    const auto& speed = pstate_speed_[static_cast<std::size_t>(d)];
    const double nominal = op_time_
                               ? op_time_[static_cast<std::size_t>(o) * static_cast<std::size_t>(devices_) +
                                          static_cast<std::size_t>(d)]
                               : pinned_cost_->op_time(o, d);
    return nominal * speed.front() / speed[static_cast<std::size_t>(pstate)];
  }

  const Platform* platform_;
  int devices_ = 0;
  FlatGraph own_graph_; // the bound cost model's graph, flat (unused when rebound to outside arrays)
  const FlatGraph* graph_ = nullptr;
  const double* op_time_ = nullptr;        // [op][device], nominal p-state; null: ask pinned_cost_
  const CostModel* pinned_cost_ = nullptr; // a model with pinned ops, whose table would be ops x devices
  // Static structure (platform and graph).
  // Per route a transfer has taken, in the order first taken (a slot): a cluster's routes are found only
  // when used, as the platform finds them (Platform::route).
  std::vector<std::int32_t> route_slot_;          // [from * n + to]: its slot, -1 before first use
  std::vector<std::vector<int>> route_resources_; // [slot]: link directions crossed
  std::vector<std::vector<int>> route_links_;     // [slot]: link ids, for bytes per link
  std::vector<double> route_latency_, route_weight_;
  std::vector<double> time_factor_;               // per op (scenario noise)
  std::vector<std::vector<double>> pstate_speed_; // per device, per p-state
  struct ProfileEvent {
    double at;
    int device; // -1 for a link resource
    int resource;
    double availability;
  };
  std::vector<ProfileEvent> profile_events_; // sorted by time
  MaxMinSharing sharing_;
  double noise_cv_ = 0.0; // the scenario's op-time noise, drawn per op of the bound graph
  std::uint64_t noise_seed_ = 0;
  SharingStates sharing_states_; // kept across runs: one platform, the same mixes of routes

  // Per run.
  const Plan* plan_ = nullptr;
  Execution result_;
  std::vector<std::size_t> stream_base_, cursor_;
  std::vector<DeviceId> slot_device_;
  // The plan's placement as the event loop reads it: per op its stream slot, per consumer entry of the
  // graph (FlatGraph::all_consumers) the consumer's device, per slot its queue.
  struct OpWait {       // side by side: an input's arrival reads both
    int missing;        // inputs not yet on its device
    std::uint32_t slot; // its stream slot
  };
  std::vector<OpWait> op_wait_;
  std::vector<DeviceId> consumer_device_;
  std::vector<const std::vector<OpId>*> slot_queue_;
  std::vector<OpId> running_op_;            // per stream slot, -1 when idle
  std::vector<std::uint64_t> running_bits_; // bit per stream slot: running
  // Calls f(slot) for each running slot of `device`, in slot order.
  template <class F> void for_each_running(std::size_t device, F&& f) const {
    const SlotWords& sw = slot_words_[device];
    for (std::size_t w = sw.first; w <= sw.last; ++w) {
      std::uint64_t bits = running_bits_[w];
      if (w == sw.first) bits &= sw.first_mask;
      if (w == sw.last) bits &= sw.last_mask;
      for (; bits != 0; bits &= bits - 1)
        f((w << 6) + static_cast<std::size_t>(std::countr_zero(bits)));
    }
  }
  // Per device, the words of running_bits_ its slots span and the masks of its bits in the first and last
  // (first > last for a device with no stream).
  struct SlotWords {
    std::size_t first, last;
    std::uint64_t first_mask, last_mask;
  };
  std::vector<SlotWords> slot_words_;
  std::vector<std::size_t> due_slots_; // scratch: slots whose op ends now
  std::vector<double> remaining_; // per stream slot: seconds of work left at full speed, as of slot_updated_
  std::vector<double> slot_updated_, slot_rate_, slot_finish_;
  std::vector<double> device_next_; // per device: the earliest slot_finish_ of its running ops
  double flow_next_ = 0.0;          // the earliest finish of flows_
  std::vector<int> active_on_device_;
  // Devices whose running ops need a new share, done once per instant before the next event is chosen:
  // an op ending and the next starting on a device at one instant cost one pass, not two.
  std::vector<std::size_t> reshare_devices_;
  std::vector<char> reshare_mark_;
  std::vector<double> device_availability_, resource_availability_;
  std::vector<Transfer> transfers_;
  std::vector<OpId> waiters_; // transfers' waiters, back to back, [0, waiters_end_) used
  std::uint32_t waiters_end_ = 0;
  std::vector<std::vector<std::size_t>> copy_queue_; // per source device: transfers waiting, FIFO
  std::vector<std::vector<std::size_t>> in_queue_;   // per destination: transfers holding a source engine
  std::vector<std::size_t> copy_queue_head_, in_queue_head_;
  std::vector<int> out_free_, in_free_; // per device: free outgoing and incoming copy engines
  std::vector<std::size_t> copy_ready_; // sources whose queue grew at this instant
  std::vector<char> copy_ready_mark_;
  // Transfers that ended at this instant, in the order they started (SimGrid wakes the actors of
  // simultaneous completions in that order), with the length of their source's queue then.
  struct FreedEngines {
    std::size_t from, to, queued;
  };
  std::vector<FreedEngines> freed_;
  std::vector<std::size_t> woken_;       // scratch: waiters handed an incoming engine at this instant
  std::vector<int> flowing_on_;          // per link resource: flows sharing its bandwidth now
  std::vector<double> route_alone_rate_; // [slot]: a transfer's rate with its route to itself
  std::vector<Flow> flows_;
  std::vector<MaxMinSharing::Flow> sharing_flows_; // scratch: one per route of the mix, for the solver
  std::vector<double> mix_rates_;                  // scratch: the per-flow rate on each route of the mix
  std::vector<double> route_rate_;                 // scratch: [slot] the per-flow rate of the mix
  SharingStates::State mix_state_ = SharingStates::kIdle; // the routes flowing now
  int links_off_nominal_ = 0; // link directions whose availability is not 1 (no caching then)
  std::vector<std::pair<double, std::size_t>> timed_; // explicit-cost edges: (end, transfer), a min-heap
  std::vector<std::size_t> check_slots_;              // stream slots whose head may have become ready
  IssueCosts issue_costs_;                            // the bound cost model's (CostModel::issue_costs)
  // Stream heads their host has not issued yet: (issued, slot), a min-heap.
  std::vector<std::pair<double, std::size_t>> issue_waits_;
  std::vector<int> pending_to_; // scratch: destination -> transfer index
  // Energy: seconds each device was busy (busy_since_ while it is), extra joules of lower p-states, bytes
  // per link.
  std::vector<double> busy_seconds_, busy_since_, pstate_extra_, link_bytes_;
  // Memory: bytes live per device, their peak, and the uses left of each copy: a tensor's on its producer's
  // device (local readers and outgoing transfers), a transfer's on its destination (its readers there).
  std::vector<double> live_, peak_;
  std::vector<char> grew_; // per device: live bytes grew at this instant (listed in grown_)
  std::vector<std::size_t> grown_;
  std::vector<int> uses_; // [tensor]: its producer's copy; [tensor_count + transfer]: the transfer's
  std::vector<std::uint32_t> use_of_; // per consumer entry: the uses_ its read counts against
  // The optimizer step: per consumer entry, whether its copy is read by an update on its device (empty: the
  // graph has no updates); per device, its updates, those not yet ended, and the bytes held until then.
  std::vector<char> held_entry_;
  std::vector<int> step_ops_, step_ops_left_;
  std::vector<double> held_;
  std::size_t ops_left_ = 0;
  std::size_t profile_next_ = 0;
  bool rates_dirty_ = false;
};

// One evaluation (allocates its buffers; use ContentionEvaluator in loops).
Execution run_contention(const Plan& plan, const CostModel& cost, const Scenario& scenario = {});

} // namespace hs
