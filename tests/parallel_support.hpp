#pragma once
// What the tests of collectives and parallelism share: rank device names, the 8-GPU preset, the plan
// that puts every op where it is pinned, and the memory of its SimGrid replay.
#include "sim/cost_model.hpp"
#include "sim/memory.hpp"
#include "sim/plan.hpp"
#include "sim/platform.hpp"
#include "sim/simgrid_engine.hpp"

#include <string>
#include <vector>

namespace hs::test {

// "gpu0", ..., "gpu<n-1>".
inline std::vector<std::string> gpus(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("gpu" + std::to_string(i));
  return out;
}

inline const Platform& gpu_node() {
  static const Platform p = load_platform("multi-gpu-node"); // 8 A100s, one NVSwitch link each
  return p;
}

// Each op on the device it is pinned to, in topological order; collectives on a stream of their own, as
// NCCL runs them (with `collective_stream` false, everything on stream 0).
inline Plan pinned_plan(const Graph& g, const Platform& p, bool collective_stream = true) {
  Plan plan = Plan::empty(g.op_count(), p, "pinned");
  for (OpId o : g.topological_order())
    plan.append(o, *p.find_device(g.op(o).allowed_devices.at(0)),
                collective_stream && g.op(o).kind == "collective" ? 1 : 0);
  return plan;
}

// The memory of `g` run as pinned and replayed by SimGrid on `p`.
inline MemoryUsage replayed_memory(const Graph& g, const Platform& p) {
  const CostModel cost(g, p);
  const Plan plan = pinned_plan(g, p);
  return memory_usage(plan, cost, run_simgrid(plan, cost));
}

} // namespace hs::test
