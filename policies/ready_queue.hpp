#pragma once
// A set of ready ops ordered by priority (higher first, ties by op id), for run-time policies.
#include "sim/cost_model.hpp"

#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace hs {

class ReadyQueue {
public:
  explicit ReadyQueue(std::vector<double> priority) : priority_(std::move(priority)) {}

  void push(OpId o) { set_.insert({-priority_[static_cast<std::size_t>(o)], o}); }
  bool empty() const { return set_.empty(); }
  // Removes and returns the highest-priority op that `device` can run.
  std::optional<OpId> pop_for(DeviceId device, const CostModel& cost) {
    for (auto it = set_.begin(); it != set_.end(); ++it)
      if (cost.feasible(it->second, device)) {
        const OpId o = it->second;
        set_.erase(it);
        return o;
      }
    return std::nullopt;
  }

private:
  std::vector<double> priority_;
  std::set<std::pair<double, OpId>> set_;
};

} // namespace hs
