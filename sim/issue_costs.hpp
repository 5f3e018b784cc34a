#pragma once
// What the host spends issuing each op to its device (sim/host_issue.hpp): the cost model's answer, which
// every engine applies.
#include <cstddef>
#include <vector>

namespace hs {

// The host's time to issue each op (CostModel::issue_costs).
struct IssueCosts {
  std::vector<double> device; // per device: its own figure for every op on it; 0: each op's own
  std::vector<double> op;     // per op: OpAttributes::host_issue; empty: none has one
  double of(std::size_t op_index, std::size_t device_index) const {
    const double own = device[device_index];
    return own > 0.0 || op.empty() ? own : op[op_index];
  }
  // Whether any op on any device costs its host anything.
  bool any() const;
};

} // namespace hs
