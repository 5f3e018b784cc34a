#pragma once
// Invariants every executed schedule must satisfy, whatever policy or engine produced it.
#include "sim/execution.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>

namespace hs::test {

// A consumer starts after its input is on its device, a transfer starts after its producer ends, and a
// stream runs one op at a time.
inline void check_dependencies(const Execution& e, const Plan& plan, const CostModel& cost) {
  const Graph& g = cost.graph();
  constexpr double eps = 1e-9;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const OpId producer = g.tensor(t).producer;
    for (OpId c : g.tensor(t).consumers) {
      double ready = e.ops[producer].end;
      if (plan.device[c] != plan.device[producer]) {
        auto it = std::find_if(e.transfers.begin(), e.transfers.end(),
                               [&](const TransferRun& r) { return r.tensor == t && r.to == plan.device[c]; });
        REQUIRE_MESSAGE(it != e.transfers.end(), "missing transfer of ", g.tensor(t).name);
        CHECK(it->start >= e.ops[producer].end - eps);
        ready = it->end;
      }
      CHECK_MESSAGE(e.ops[c].start >= ready - eps, g.op(c).name, " starts before its input ",
                    g.tensor(t).name);
    }
  }
  for (const auto& streams : plan.queues)
    for (const auto& q : streams)
      for (std::size_t i = 1; i < q.size(); ++i)
        CHECK(e.ops[q[i]].start >= e.ops[q[i - 1]].end - eps);
}

// Dependencies, plus: energy at least the idle power of every device over the makespan, and no op ends
// after the makespan.
inline void check_invariants(const Execution& e, const Plan& plan, const CostModel& cost) {
  check_dependencies(e, plan, cost);
  double idle = 0;
  for (const auto& d : cost.platform().devices)
    idle += d.idle_watts();
  const double energy = std::accumulate(e.device_energy.begin(), e.device_energy.end(), 0.0);
  CHECK(energy >= idle * e.makespan * (1 - 1e-9));
  for (const auto& run : e.ops)
    CHECK(run.end <= e.makespan + 1e-9);
}

} // namespace hs::test
