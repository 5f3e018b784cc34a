#pragma once
// The whole graph on one device: the project's reference baseline, and the floor that contention-aware
// list schedulers check their plans against.
#include "sim/plan.hpp"

#include <optional>
#include <string>

namespace hs {

// The whole graph, in topological order, on the single device that runs it fastest alone; nullopt (with
// a reason in `why_not`) when no device can run every op. `serial_seconds`, where given, receives the sum
// of its ops' times on that device: one stream runs them one after another, so the plan takes no less.
std::optional<Plan> fastest_single_device_plan(const CostModel& cost, const std::string& policy,
                                               std::string* why_not = nullptr,
                                               double* serial_seconds = nullptr);

// `plan`, unless the contention-aware evaluator says the fastest single-device plan finishes sooner (and,
// with `respect_capacity`, fits in memory), in which case that plan under `plan`'s policy name. A list
// scheduler's greedy choices can lose to not splitting the graph at all; the evaluator sees it before the
// replay does. `planned`, when known, is `plan`'s evaluator makespan (not computed again).
Plan no_worse_than_single_device(Plan plan, const CostModel& cost, bool respect_capacity = false,
                                 std::optional<double> planned = std::nullopt);

} // namespace hs
