#pragma once
// Weighted max-min fair sharing of resources (link directions) among flows, by progressive filling: the
// resource with the smallest remaining capacity per unit of weight saturates first and fixes the rates of
// its flows; repeat on what is left. This is the allocation SimGrid's lmm solver computes for its CM02
// network model, where a flow's weight is 1 / (its route's latency).
#include <cstddef>
#include <vector>

namespace hs {

class MaxMinSharing {
public:
  struct Flow {
    const std::vector<int>* resources; // the resources it crosses (each at most once)
    double weight;
    double rate = 0.0; // output
  };

  explicit MaxMinSharing(std::vector<double> capacity);

  // Sets every flow's rate; `availability[r]` scales resource r's capacity. A flow on no resource gets an
  // infinite rate. Allocation-free once warm.
  void solve(std::vector<Flow>& flows, const std::vector<double>& availability);

private:
  std::vector<double> capacity_;
  std::vector<double> left_, weight_;
  std::vector<int> unfixed_; // per resource; all 0 between solves
  std::vector<int> touched_;
  std::vector<std::size_t> open_;
};

} // namespace hs
