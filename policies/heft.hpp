#pragma once
// Building blocks of HEFT that other list schedulers (PEFT, memory-aware ETF, ...) reuse.
#include "sim/plan.hpp"

#include <functional>
#include <vector>

namespace hs {

// rank_u(i) = w-bar(i) + max over successors j of (c-bar(i, j) + rank_u(j)).
std::vector<double> upward_ranks(const CostModel& cost);

// Ops by decreasing `rank`, ties by topological position.
std::vector<OpId> order_by_decreasing(const Graph& g, const std::vector<double>& rank);

struct ListSchedule {
  std::vector<DeviceId> device;
  std::vector<double> start;
  std::vector<double> finish;
};

// Places ops in `order`, each on the device with the lowest score(op, device, earliest finish time),
// using insertion into idle gaps. HEFT's score is the finish time itself. With `contention`, data-ready
// times book link and copy-engine time (policies/input_arrival.hpp); without, they are the classic ones.
ListSchedule schedule_in_order(const std::vector<OpId>& order, const CostModel& cost, bool contention,
                               const std::function<double(OpId, DeviceId, double eft)>& score);

} // namespace hs
