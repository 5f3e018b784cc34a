#pragma once
// The contention-aware evaluator: an in-process fluid model of the SimGrid replay, fast enough for the
// inner loop of every planner and search.
//
// It models what the replay models, with the same rules:
// - a device stream runs its queue in order; an op starts once its inputs are on its device;
// - the streams of one device share its throughput equally (SimGrid's single-core host);
// - a transfer is taken, in FIFO order, by one of the source device's copy engines; it waits its route's
//   latency, then shares the bandwidth of every link (each direction of a split-duplex link on its own)
//   with the transfers crossing it, by weighted max-min fairness with weight 1 / route latency (SimGrid's
//   CM02 model: `sharing_penalty` = route latency);
// - textbook edges with an explicit `comm_time` take that time, with neither copy engine nor link;
// - scenarios apply: device and link availability profiles scale speed and bandwidth, noise scales ops.
//
// Because copy engines bound how many transfers run at once, the max-min problem at each event is small
// (a few flows over a few links), so the cost is O((V + E) x active flows). See docs/architecture.md for
// why this model rather than Sinnen & Sousa's edge scheduling, and bench/ for its measured error.
#include "sim/execution.hpp"
#include "sim/scenario.hpp"

#include <cstdint>
#include <vector>

namespace hs {

// Reusable evaluator: holds its buffers, so repeated evaluations (a search's inner loop) do not allocate.
// One instance per thread.
class ContentionEvaluator {
public:
  explicit ContentionEvaluator(const CostModel& cost, const Scenario& scenario = {});

  // The timeline of `plan` (already valid: see validate_plan), with energy from the timeline.
  const Execution& run(const Plan& plan);
  // Only the makespan (no energy, transfers still recorded).
  double makespan(const Plan& plan) { return simulate(plan); }
  // Peak bytes per device of the last run, by the same rules as memory_usage() (sim/memory.hpp), tracked
  // as the timeline unfolds instead of by sorting its events afterwards.
  const std::vector<double>& peak_memory() const { return peak_; }

private:
  struct Flow { // an active transfer
    std::size_t transfer;
    std::size_t route;
    double weight;      // max-min weight: 1 / route latency, as SimGrid's CM02 sharing penalty
    double latency_end; // the flow shares no bandwidth before this time
    double remaining;   // bytes
    double rate = 0.0;  // bytes/s
    bool flowing = false;
  };
  double simulate(const Plan& plan);
  void start_ready_streams(double now);
  void start_copy_engines(double now);
  void op_finished(std::size_t slot, double now);
  void transfer_finished(std::size_t transfer, double now);
  void input_arrived(OpId consumer);
  void share_bandwidth();
  void release_inputs(OpId op, DeviceId dev);
  void record_peaks();

  const CostModel& cost_;
  int devices_ = 0;
  // Static structure.
  std::vector<double> capacity_;                   // per link resource, bytes/s (nominal)
  std::vector<std::vector<int>> route_resources_;  // [from * n + to]
  std::vector<double> route_latency_, route_weight_;
  std::vector<double> time_factor_;                // per op (scenario noise)
  struct ProfileEvent {
    double at;
    int device; // -1 for a link resource
    int resource;
    double availability;
  };
  std::vector<ProfileEvent> profile_events_; // sorted by time

  // Per run.
  const Plan* plan_ = nullptr;
  Execution result_;
  std::vector<int> missing_inputs_;
  std::vector<std::size_t> stream_base_, cursor_;
  std::vector<DeviceId> slot_device_;
  std::vector<OpId> running_op_;     // per stream slot, -1 when idle
  std::vector<double> remaining_;    // per stream slot: seconds of work left at full speed
  std::vector<int> active_on_device_;
  std::vector<double> device_availability_, resource_availability_;
  struct Transfer {
    TensorId tensor;
    DeviceId from, to;
    std::uint32_t waiters_begin, waiters_end;
    double start;
    int readers_left; // distinct consumers on `to` still to finish (memory of the copy there)
  };
  std::vector<Transfer> transfers_;
  std::vector<OpId> waiters_;
  std::vector<std::vector<std::size_t>> copy_queue_; // per source device: transfers waiting, FIFO
  std::vector<std::size_t> copy_queue_head_;
  std::vector<int> copy_engines_free_;
  std::vector<Flow> flows_;
  std::vector<std::pair<double, std::size_t>> timed_; // explicit-cost edges: (end, transfer), a min-heap
  std::vector<std::size_t> check_slots_;              // stream slots whose head may have become ready
  std::vector<int> pending_to_;                       // scratch: destination -> transfer index
  std::vector<double> res_left_, res_weight_;         // scratch for max-min sharing, per link resource
  std::vector<int> res_unfixed_;                      // all 0 between solves
  std::vector<int> touched_;                          // scratch: resources the flowing flows cross
  std::vector<std::size_t> unfixed_flows_;            // scratch: flows whose rate is not fixed yet
  // Memory: bytes live per device, their peak, and per tensor the uses left of its copy on the producer's
  // device (local readers and outgoing transfers) and the range of its transfers in transfers_.
  std::vector<double> live_, peak_;
  std::vector<int> producer_uses_;
  std::vector<std::uint32_t> tensor_transfers_begin_, tensor_transfers_end_;
  std::size_t ops_left_ = 0;
  std::size_t profile_next_ = 0;
  bool rates_dirty_ = false;
};

// One evaluation (allocates its buffers; use ContentionEvaluator in loops).
Execution run_contention(const Plan& plan, const CostModel& cost, const Scenario& scenario = {});

} // namespace hs
