#pragma once
// When the host has issued each op to its device. An eager framework (PyTorch, TensorFlow's eager mode)
// spends host time on every op (Python, the dispatcher, the driver's launch) and queues the kernel without
// waiting for it: a device whose kernels are shorter than that time waits on its host, one whose kernels
// are longer hides it, and a run of short ops after a long one runs back to back on the lead the host
// built up. A device's `issue_overhead` (sim/platform.hpp) is that host time per op.
//
// A static plan is issued as a program would issue it: each device's host issues the device's ops one
// after another from time 0, never waiting on the device, in queue order (a device with several streams
// interleaves them: every stream's first op, then every stream's second, ...). A run-time policy issues an
// op when it dispatches it (sim/simgrid_dynamic.cpp). Either way an op starts no earlier than it was
// issued; every engine applies the same times, so the evaluator, the analytic engine and the replay agree.
//
// The host time per op is the op's own (OpAttributes::host_issue: what the graph's framework spends, an
// eager graph's measured figures) unless its device gives one (a calibration's, measured on the user's own
// host, or the platform's), which replaces it for every op on the device.
#include "sim/execution.hpp"
#include "sim/issue_costs.hpp"
#include "sim/plan.hpp"

#include <cstddef>
#include <vector>

namespace hs {

// Per op, the time its device's host has issued it. Empty when no op costs its host anything, so that
// engines skip the check.
std::vector<double> host_issue_times(const Plan& plan, const IssueCosts& costs, std::size_t op_count);

// What its host cost a device in a run: the ops that could have started (their stream free, their inputs
// on the device) before their host had issued them, and the time between. Zero for every device of a run
// whose Execution records no issue times.
struct HostWait {
  int ops = 0;
  double seconds = 0.0;
};
std::vector<HostWait> host_waits(const Plan& plan, const Graph& g, const Execution& e);

} // namespace hs
