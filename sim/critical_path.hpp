#pragma once
// The chain of activities that set a run's makespan, read from its Execution (what ran when), not from
// the plan's estimates.
//
// Rule: start from the activity that ended last (an op; ties: the lowest op id). From the current
// activity, step to the one of its real dependencies whose end is the latest not after the current
// start (within 1e-9 of the makespan, for rounding): for an op, each input's transfer to the op's device
// (or the producing op itself when it ran on the same device) and the op before it on its stream; for a
// transfer, the op that produced its tensor. Ties go to data dependencies, in input order, before stream
// order. Stop at an activity with no such dependency. Time spent waiting for a copy engine or a busy
// device shows as a gap between two links of the chain.
#include "sim/execution.hpp"

#include <vector>

namespace hs {

struct Activity {
  enum class Kind { Op, Transfer };
  Kind kind = Kind::Op;
  int index = -1; // an op id, or an index into Execution::transfers
  bool operator==(const Activity&) const = default;
};

// First activity first; empty for an execution without ops.
std::vector<Activity> critical_path(const Execution& e, const Plan& plan, const Graph& g);

} // namespace hs
