#pragma once
// A list scheduler plans each device as one sequence; a device with several streams (CUDA streams, hardware
// queues) can run that sequence out of order where it does not depend on itself, so an op whose inputs are
// late need not hold up the independent ops queued behind it. The streams of a device share its throughput
// (both engines), so running two ready ops at once gains nothing by itself; the gain is only in the gaps.
// The evaluator decides: the spread plan is kept only when it finishes sooner.
#include "sim/plan.hpp"

#include <optional>

namespace hs {

// `plan` with each device's queue dealt over its streams, in queue order: an op follows a same-device
// producer it reads from onto that producer's stream (a chain stays in order), else goes to the stream that
// frees first on `plan`'s own evaluator timeline. Returned only when the contention-aware evaluator says it
// finishes sooner than `plan` (and, with `respect_capacity`, fits in memory); otherwise `plan` as it is.
// Devices with one stream are left alone. Where it evaluated the plans, `makespan` (when given) gets the
// returned plan's evaluator makespan, so a caller need not evaluate it again.
Plan spread_over_streams(Plan plan, const CostModel& cost, bool respect_capacity = false,
                         std::optional<double>* makespan = nullptr);

} // namespace hs
