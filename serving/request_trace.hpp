#pragma once
// What the request-level simulation tells an observer as it runs, for pictures of a run (the timeline,
// serving_timeline.hpp): each finished request's phases and each span a batch held a device.
#include <cstddef>
#include <cstdint>

namespace hs::serving {

// One finished or dropped request (dropped: `start` and `end` are -1). Times in seconds from the run's start;
// for a tenant whose prefill and decode run on different devices (TenantSpec::prefill_devices) `start` is its
// prefill's start, and the prefill's end, its KV cache's arrival at the decode devices and its joining the
// decode batch are set (else all -1).
struct RequestTrace {
  std::uint64_t id = 0; // in arrival order over all tenants
  std::size_t tenant = 0;
  double arrival = 0.0;
  double start = 0.0; // its first batch's start
  double end = 0.0;
  double prefill_end = -1.0, kv_arrived = -1.0, decode_start = -1.0;
};

enum class SpanKind { Batch, Iteration, Prefill };

// A batch (or a continuous-batching iteration, or a disaggregated prefill) holding one device.
struct DeviceSpan {
  std::size_t device = 0;
  std::size_t tenant = 0;
  double start = 0.0, end = 0.0;
  int requests = 0; // in the batch
  SpanKind kind = SpanKind::Batch;
};

} // namespace hs::serving
