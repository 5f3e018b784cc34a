#pragma once
// A proposal prior: what some model believes about each op's device, as a probability per (op, device),
// handed to the search (prior_guide.hpp), which samples neighbours around it and sharpens it online. The
// search knows only this interface; a prior that needs a heavier library (the learned one, gnn/gnn_prior.cpp
// on libtorch) registers itself from its own layer, and a build without that library simply lacks the name.
//
//   HS_REGISTER_PROPOSAL_PRIOR(my_prior, {"my-prior", "what it is", [](const CostModel& c) { ... }})
#include "sim/cost_model.hpp"
#include "sim/registry.hpp"

#include <functional>
#include <string>
#include <vector>

namespace hs::pareto {

// probabilities[op][device]: 0 where the op cannot run, summing to 1 over the op's feasible devices.
using OpDeviceProbabilities = std::vector<std::vector<double>>;

struct ProposalPrior {
  std::string name;
  std::string description;
  std::function<OpDeviceProbabilities(const CostModel&)> probabilities;
};

Registry<ProposalPrior>& proposal_prior_registry();

// Checks a prior's answer against the graph and platform (sizes, no negative or infeasible mass, rows that
// sum to 1): a prior is a plug-in, and a wrong one should fail loudly rather than bias the search silently.
void check_probabilities(const CostModel& cost, const OpDeviceProbabilities& p, const std::string& prior);

} // namespace hs::pareto

#define HS_REGISTER_PROPOSAL_PRIOR(id, ...)                                                                  \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_prior_##id = ::hs::pareto::proposal_prior_registry().add(__VA_ARGS__);      \
  }
