#pragma once
// Evaluates a Plan in O(V + E) as a timeline: each op starts when its stream is free and its inputs
// have arrived; a transfer starts when its producer ends and takes its contention-free route time.
// No bandwidth sharing and no copy-engine queueing: the SimGrid replay adds those.
#include "sim/execution.hpp"

namespace hs {

Execution run_analytic(const Plan& plan, const CostModel& cost);

} // namespace hs
