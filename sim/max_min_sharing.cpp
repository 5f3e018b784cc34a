#include "sim/max_min_sharing.hpp"

#include <algorithm>
#include <limits>

namespace hs {

MaxMinSharing::MaxMinSharing(std::vector<double> capacity)
    : capacity_(std::move(capacity)), left_(capacity_.size(), 0.0), weight_(capacity_.size(), 0.0),
      unfixed_(capacity_.size(), 0) {}

void MaxMinSharing::solve(std::vector<Flow>& flows, const std::vector<double>& availability) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  // Only the resources some flow crosses take part, so a large platform with few active flows stays cheap.
  touched_.clear();
  open_.clear();
  double* left = left_.data();
  double* weight = weight_.data();
  int* unfixed = unfixed_.data();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    Flow& f = flows[i];
    f.rate = inf;
    if (f.resources->empty()) continue;
    open_.push_back(i);
    for (int r : *f.resources) {
      if (unfixed[r]++ == 0) {
        touched_.push_back(r);
        left[r] = capacity_[static_cast<std::size_t>(r)] * availability[static_cast<std::size_t>(r)];
        weight[r] = 0.0;
      }
      weight[r] += f.weight;
    }
  }
  // Ties between equal shares may break either way: fixing the flows of one saturated resource leaves the
  // other's share per weight unchanged, so the rates do not depend on the order.
  while (!open_.empty()) {
    double share = inf;
    int bottleneck = -1;
    for (int r : touched_)
      if (unfixed[r] > 0) {
        const double s = std::max(left[r], 0.0) / weight[r];
        if (s < share) {
          share = s;
          bottleneck = r;
        }
      }
    std::size_t kept = 0;
    for (const std::size_t i : open_) {
      Flow& f = flows[i];
      const auto& res = *f.resources;
      bool crosses = false;
      for (int r : res)
        crosses = crosses || r == bottleneck;
      if (!crosses) {
        open_[kept++] = i;
        continue;
      }
      f.rate = f.weight * share;
      for (int r : res) {
        left[r] -= f.rate;
        weight[r] -= f.weight;
        --unfixed[r];
      }
    }
    open_.resize(kept);
  }
  for (int r : touched_)
    unfixed[r] = 0;
}

} // namespace hs
