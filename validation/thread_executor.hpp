#pragma once
// Runs a graph for real: one thread per device (each pinned to its own core where possible) executes
// its queue of the plan in order, waiting for each op's predecessors, and every op runs a CPU kernel of
// the op's shape (see kernel_shapes.hpp). The measured makespan is what a SimGrid replay of the same plan
// on the thread platform predicts.
#include "sim/plan.hpp"

#include <thread>
#include <vector>

namespace hs::validation {

struct RealExecution {
  std::vector<double> makespans;  // seconds, one per timed run (after one warm-up run)
  std::vector<double> op_seconds; // per op, P50 over the timed runs (diagnostics)
  // Per op, thread CPU time while it ran (P50 over the runs): below op_seconds when other processes took
  // the core.
  std::vector<double> op_cpu_seconds;
  double p50 = 0.0;
  double p95 = 0.0;
};

// Pins a thread to core `core` modulo the hardware threads (best effort: an unpinned thread still runs).
void pin_to_core(std::thread& t, unsigned core);

// Throws InputError if an op has no kernel, PlanError if the plan uses more than one stream per device.
RealExecution execute_on_threads(const Graph& g, const Plan& plan, int repeats);

} // namespace hs::validation
