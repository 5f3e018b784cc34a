#pragma once
// The archive search guided by a proposal prior (proposal_prior.hpp), after the HeteroOpt article's "learned
// policy inside a heuristic skeleton": the per-op device probabilities become a distribution per super-node
// (the mean of its ops' rows over its allowed devices), whose mode and a few samples seed the search; a share
// of the children are neighbours sampled around beam members (the K archive members with the largest
// exclusive hypervolume contribution) by redrawing from the distribution a few super-nodes, chosen where it
// disagrees most with the parent, or a run of super-nodes consecutive in topological order (a coupled region
// at once), or now and then a whole new placement. Every child that
// enters the front pulls the distribution toward itself (the cross-entropy method's update, online), so the
// prior is sharpened by what the evaluator confirms. The archive is the final Pareto filter.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/proposal_prior.hpp"
#include "sim/random.hpp"

#include <vector>

namespace hs::pareto {

struct PriorGuideOptions {
  double share = 0.5;         // of the children, made by the guide
  int beam = 8;               // parents of the guide's children: the top K by hypervolume contribution
  double learning_rate = 0.1; // the CEM step toward a child that entered the front
  double floor = 0.02;        // mixed in uniformly when sampling, so no allowed device is ever ruled out
  int samples = 4;            // seeds drawn from the distribution, besides its mode
};

class PriorGuide {
public:
  PriorGuide(const Encoding& enc, const OpDeviceProbabilities& p, std::uint64_t seed,
             PriorGuideOptions o = {});

  const PriorGuideOptions& options() const { return options_; }
  // The mode, the mode with every fusion on, and options().samples draws.
  std::vector<Genome> seeds();
  // A neighbour of `parent` (its rewrite genes kept).
  Genome propose(const Genome& parent, Rng& rng) const;
  // `child` entered the front.
  void reinforce(const Genome& child);
  // Per super-node, the probability of each of its allowed devices (Coarsening's order).
  const std::vector<std::vector<double>>& distribution() const { return q_; }

private:
  int draw(std::size_t node, int except, Rng& rng) const;
  const Encoding& enc_;
  PriorGuideOptions options_;
  std::vector<std::vector<double>> q_;
  std::vector<std::size_t> movable_;
  std::vector<std::size_t> topo_movable_; // movable_ in the order their first op appears topologically
  Rng seed_rng_;
};

} // namespace hs::pareto
