#pragma once
// Building blocks of HEFT that other list schedulers (PEFT, memory-aware ETF, ...) reuse.
#include "sim/plan.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace hs {

// rank_u(i) = w-bar(i) + max over successors j of (c-bar(i, j) + rank_u(j)).
std::vector<double> upward_ranks(const CostModel& cost);

// Ops by decreasing `rank`, ties by topological position (of a Graph or a FlatGraph).
template <class G> std::vector<OpId> order_by_decreasing(const G& g, const std::vector<double>& rank) {
  // Ties by topological position keep the list a valid topological order even with zero-cost ops; with
  // them the order is total, so an unstable sort on contiguous keys gives the one answer, and fast (the
  // Pareto search orders every candidate).
  struct Key {
    double rank;
    int position;
    OpId op;
  };
  const auto& topo = g.topological_order();
  std::vector<Key> keys;
  keys.reserve(topo.size());
  for (std::size_t i = 0; i < topo.size(); ++i)
    keys.push_back({rank[static_cast<std::size_t>(topo[i])], static_cast<int>(i), topo[i]});
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.position < b.position;
  });
  std::vector<OpId> order;
  order.reserve(keys.size());
  for (const Key& k : keys)
    order.push_back(k.op);
  return order;
}

// HEFT's plan: contention-aware (links and copy engines booked, streams dealt, never worse than the best
// single device in the evaluator) or classic (Topcuoglu 2002 as published). `heft` and `heft-classic` are
// this; policies built on HEFT call it, not the registry by name.
Plan heft_plan(const CostModel& cost, bool contention, std::string policy);

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
