#pragma once
// SimGrid has no memory model, so HeteroSim derives memory from the timeline: a tensor occupies its
// producer's device from the producer's start until its last reader there (or its last outgoing copy)
// ends; a copy occupies the destination from the transfer's start until its last reader there ends;
// parameters stay resident; a workspace lives while its op runs; graph outputs live to the end. An
// optimizer step is the exception: what its updates read (the gradients) and their workspaces (foreach
// AdamW's sqrt(v) list) stay until the device's last update ends, as PyTorch holds every `.grad` through
// `optimizer.step()` until `zero_grad()`.
#include "sim/execution.hpp"

#include <vector>

namespace hs {

// What a device's peak is made of. Parameters are the resident bytes of ops other than optimizers; an
// optimizer op's resident bytes are its state (Adam's moments, a master copy); weights gathered for a use
// (ZeRO-3) are parameters while they live. Gradients are tensors that weight-gradient ops (".wgrad", and
// ".gradacc", a tied weight's sum) or collectives produce or that optimizer ops read; workspaces live while
// their op runs; every other tensor is an activation.
// Collectives whose op names begin with this gather weights (ZeRO-3): what they produce counts as
// parameters, not gradients, while it is live.
inline constexpr const char* gathered_weights_prefix = "paramgather";
// The op name suffix of a tied weight's gradient sum ("wte.gradacc"): what it writes is a weight gradient.
inline constexpr const char* tied_gradient_sum_suffix = ".gradacc";

struct MemoryBreakdown {
  double parameters = 0, optimizer_state = 0, gradients = 0, activations = 0, workspace = 0;
};

struct MemoryUsage {
  std::vector<double> peak;             // bytes per device
  std::vector<double> peak_time;        // when the peak was first reached
  std::vector<double> parameters;       // resident parameter bytes per device (optimizer state included)
  std::vector<MemoryBreakdown> at_peak; // per device, the peak by kind of buffer
};

MemoryUsage memory_usage(const Plan& plan, const CostModel& cost, const Execution& e);

// Devices whose peak exceeds capacity, as readable lines ("gpu0: 90 GB of 80 GB").
std::vector<std::string> capacity_violations(const MemoryUsage& m, const Platform& p);

} // namespace hs
