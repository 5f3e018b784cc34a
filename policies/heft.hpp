#pragma once
// Building blocks of HEFT that other list schedulers (PEFT, memory-aware ETF, ...) reuse.
#include "sim/plan.hpp"

#include <algorithm>
#include <functional>
#include <vector>

namespace hs {

// rank_u(i) = w-bar(i) + max over successors j of (c-bar(i, j) + rank_u(j)).
std::vector<double> upward_ranks(const CostModel& cost);

// Ops by decreasing `rank`, ties by topological position (of a Graph or a FlatGraph).
template <class G> std::vector<OpId> order_by_decreasing(const G& g, const std::vector<double>& rank) {
  const auto& topo = g.topological_order();
  std::vector<OpId> order(topo.begin(), topo.end());
  // Ties by topological position keep the list a valid topological order even with zero-cost ops.
  std::stable_sort(order.begin(), order.end(), [&](OpId a, OpId b) {
    const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
    if (rank[ia] != rank[ib]) return rank[ia] > rank[ib];
    return g.topological_position(a) < g.topological_position(b);
  });
  return order;
}

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
