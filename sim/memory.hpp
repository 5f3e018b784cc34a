#pragma once
// SimGrid has no memory model, so HeteroSim derives memory from the timeline: a tensor occupies its
// producer's device from the producer's start until its last reader there (or its last outgoing copy)
// ends; a copy occupies the destination from the transfer's start until its last reader there ends;
// parameters stay resident; a workspace lives while its op runs; graph outputs live to the end.
#include "sim/execution.hpp"

#include <vector>

namespace hs {

struct MemoryUsage {
  std::vector<double> peak;       // bytes per device
  std::vector<double> peak_time;  // when the peak was first reached
  std::vector<double> parameters; // resident parameter bytes per device
};

MemoryUsage memory_usage(const Plan& plan, const CostModel& cost, const Execution& e);

// Devices whose peak exceeds capacity, as readable lines ("gpu0: 90 GB of 80 GB").
std::vector<std::string> capacity_violations(const MemoryUsage& m, const Platform& p);

} // namespace hs
