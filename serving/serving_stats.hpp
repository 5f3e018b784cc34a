#pragma once
// What a serving run measured, kept as running sums and fixed-size histograms: memory does not grow
// with the number of finished requests.
#include "serving/latency_histogram.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hs::serving {

struct TenantStats {
  std::uint64_t arrived = 0, served = 0, dropped = 0, met = 0; // met: finished within the SLO
  LatencyHistogram latency;                                    // arrival to completion
  LatencyHistogram queueing;                                   // arrival to the start of its first batch
  double queue_sum = 0.0;      // seconds from arrival to the start of its first batch
  double service_sum = 0.0;    // seconds from that start to completion
  double dynamic_joules = 0.0; // its batches' energy above idle power, devices and links
  std::uint64_t batches = 0, batched_requests = 0;
  int largest_batch = 0;
  // Batches started later than both "the batch was ready" (full, or its oldest request's max_delay
  // passed) and "its devices were free": the batcher's promise, zero when it holds.
  std::uint64_t late_batches = 0;
  // Continuous batching with a KV-cache budget: the running set's largest KV cache, and iterations in which
  // a waiting request had room in the batch but not in memory.
  double kv_peak = 0.0;
  std::uint64_t kv_held_back = 0;
  // kv_policy paged: requests preempted (their cache freed, recomputed when they rejoin), and the tokens
  // of context their recomputing prefills ran again.
  std::uint64_t kv_preemptions = 0, kv_recomputed_tokens = 0;
  // Prefill and decode on different devices: per served request, the seconds from its prefill's start to
  // its end, from that end to its KV cache's arrival at the decode devices (waiting for the route
  // included), and from that arrival to joining the decode batch (the decode pool's queueing; `queueing`
  // above is then the prefill pool's).
  double prefill_sum = 0.0, transfer_sum = 0.0, decode_queue_sum = 0.0;
  LatencyHistogram decode_queueing;
};

struct DeviceStats {
  double held = 0.0;           // seconds some batch held the device
  double busy = 0.0;           // seconds ops ran on it (from the records' timelines)
  double dynamic_joules = 0.0; // above idle power
};

struct ServingResult {
  std::vector<TenantStats> tenants;
  std::vector<DeviceStats> devices;
  double link_dynamic_joules = 0.0;
  double horizon = 0.0; // the last completion
  std::uint64_t events = 0;
};

} // namespace hs::serving
