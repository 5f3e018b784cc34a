#pragma once
// Building blocks of HEFT that other list schedulers (PEFT, memory-aware ETF, ...) reuse.
#include "policies/schedule_observer.hpp"
#include "sim/plan.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace hs {

// rank_u(i) = w-bar(i) + max over successors j of (c-bar(i, j) + rank_u(j)).
std::vector<double> upward_ranks(const CostModel& cost);

// Ranks within rounding of each other (relative 1e-12) count as equal, so that the tie rule holds in floating
// point: in Topcuoglu et al.'s example n3 and n4 both rank 80, but n3's sum rounds to 79.999999999999986
// (its mean cost 43/3 is inexact), which would put n4 first against the paper's order.
inline constexpr double kRankTieTolerance = 1e-12;

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
  // A run of ranks within rounding of its first is one tie, taken in topological order. Runs are segments of
  // the sorted list and a producer never ranks below its consumer, so the order stays topological.
  const auto by_position = [](const Key& a, const Key& b) { return a.position < b.position; };
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i + 1;
    while (j < keys.size() && keys[i].rank - keys[j].rank <= kRankTieTolerance * std::abs(keys[i].rank))
      ++j;
    const auto first = keys.begin() + static_cast<std::ptrdiff_t>(i);
    const auto last = keys.begin() + static_cast<std::ptrdiff_t>(j);
    if (j - i > 1 && !std::is_sorted(first, last, by_position)) std::sort(first, last, by_position);
    i = j;
  }
  std::vector<OpId> order;
  order.reserve(keys.size());
  for (const Key& k : keys)
    order.push_back(k.op);
  return order;
}

// How HEFT and the schedulers built on its order rank and choose, for a ScheduleObserver.
ListRules upward_rank_rules(std::string choice_rule);

// HEFT's plan: contention-aware (links and copy engines booked, streams dealt, never worse than the best
// single device in the evaluator) or classic (Topcuoglu 2002 as published). `heft` and `heft-classic` are
// this; policies built on HEFT call it, not the registry by name. `observer`, when given, is told the ranks
// and every decision (policies/schedule_observer.hpp).
Plan heft_plan(const CostModel& cost, bool contention, std::string policy,
               ScheduleObserver* observer = nullptr);

// What contention-aware list schedulers do to their list schedule: deal each device's queue over its
// streams, then fall back to the fastest single device if the evaluator says that is faster; `observer`
// is told which of the two changed the plan. With `respect_capacity`, neither is taken unless it fits in
// memory.
Plan refine_list_plan(Plan plan, const CostModel& cost, ScheduleObserver* observer,
                      bool respect_capacity = false);

struct ListSchedule {
  std::vector<DeviceId> device;
  std::vector<double> start;
  std::vector<double> finish;
};

// A list scheduler's score of a device for an op, given the op's earliest finish time there: lower wins. It
// must not fall as the finish time rises (schedule_in_order skips devices by it).
using ListScore = std::function<double(OpId, DeviceId, double eft)>;

// Places ops in `order`, each on the device with the lowest score(op, device, earliest finish time),
// using insertion into idle gaps. HEFT's score is the finish time itself. With `contention`, data-ready
// times book link and copy-engine time (policies/input_arrival.hpp); without, they are the classic ones.
// A device must score strictly lower to displace one found earlier, so a tie goes to the first tied device
// in platform order. `observer`, when given, sees every candidate and choice.
ListSchedule schedule_in_order(const std::vector<OpId>& order, const CostModel& cost, bool contention,
                               const ListScore& score, ScheduleObserver* observer = nullptr);

} // namespace hs
