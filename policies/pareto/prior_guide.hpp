#pragma once
// The archive search guided by a proposal prior (proposal_prior.hpp), after the HeteroOpt article's "learned
// policy inside a heuristic skeleton": the per-op device probabilities become a distribution per super-node
// (the mean of its ops' rows over its allowed devices), whose mode and a few samples seed the search; a share
// of the children are neighbours sampled around beam members (the K archive members with the largest
// exclusive hypervolume contribution) by redrawing from the distribution a few super-nodes, chosen where it
// disagrees most with the parent, or a run of super-nodes consecutive in topological order (a coupled region
// at once), or now and then a whole new placement. Every child that
// enters the front pulls the distribution toward itself (the cross-entropy method's update, online), so the
// prior is sharpened by what the evaluator confirms. Besides that distribution of the whole front, the guide
// keeps one per objective (a corner of the front), started from the prior and pulled only toward children
// that set a new best on that objective: a share of the children are proposed around the front's best
// plan on one objective from that objective's distribution, so the extremes, which the whole front's
// distribution averages away, are sharpened on their own. The archive is the final Pareto filter.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/kin.hpp"
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
  double corner_share = 0.5;  // of the guide's children, proposed around the best plan on one objective
  double corner_learning_rate = 0.2; // the CEM step of an objective's distribution toward a new best on it
  // The archive search's allocation of children between its plain moves, the beam and the corners: the
  // shares above until `warm_up` evaluations, then in proportion to each one's recent hypervolume gain per
  // evaluation (exponential average of step `gain_step`), none under `arm_floor` (a corner: `corner_floor`,
  // so that extremes found early stop costing budget). Off: the fixed shares.
  bool adaptive = true;
  int warm_up = 100;
  double gain_step = 0.1;
  double arm_floor = 0.1;
  double corner_floor = 0.03;
  // The surrogate (surrogate_screen.hpp): the starting share of children that are its pick of
  // `surrogate_batch` plain-move neighbours, and the batch of beam proposals it picks each beam child from
  // (1: no pick). Large batches pick the surrogate's most optimistic errors, so they stay small.
  double surrogate_share = 0.3;
  int surrogate_batch = 128;
  int beam_batch = 16;
};

class PriorGuide {
public:
  PriorGuide(const Encoding& enc, const OpDeviceProbabilities& p, std::uint64_t seed,
             PriorGuideOptions o = {});

  const PriorGuideOptions& options() const { return options_; }
  // The mode, the mode with every fusion on, and options().samples draws.
  std::vector<Genome> seeds();
  using Distribution = std::vector<std::vector<double>>; // per super-node, per allowed device

  // A neighbour of `parent` (its rewrite genes kept), drawn from the whole front's distribution.
  Genome propose(const Genome& parent, Rng& rng) const { return propose_from(q_, parent, rng); }
  // The same from objective `k`'s distribution (for a parent that is the front's best on `k`).
  Genome propose_corner(const Genome& parent, std::size_t k, Rng& rng);
  // `child` entered the front.
  void reinforce(const Genome& child) { pull(q_, child, options_.learning_rate); }
  // `child` set a new best on objective `k`.
  void reinforce_corner(const Genome& child, std::size_t k) {
    pull(corner(k), child, options_.corner_learning_rate);
  }
  // Per super-node, the probability of each of its allowed devices (Coarsening's order).
  const Distribution& distribution() const { return q_; }
  // Objective `k`'s distribution (the prior's until a child sets a new best on `k`).
  const Distribution& corner_distribution(std::size_t k) { return corner(k); }

private:
  int draw(const Distribution& q, std::size_t node, int except, Rng& rng) const;
  Genome propose_from(const Distribution& q, const Genome& parent, Rng& rng) const;
  static void pull(Distribution& q, const Genome& child, double a);
  Distribution& corner(std::size_t k);
  const Encoding& enc_;
  PriorGuideOptions options_;
  Distribution q_;
  Distribution prior_;                // q_ as the prior gave it, where every corner starts
  std::vector<Distribution> corners_; // per objective, made on first use
  std::vector<std::size_t> movable_;
  KinClasses kin_;
  std::vector<std::size_t> topo_movable_; // movable_ in the order their first op appears topologically
  Rng seed_rng_;
};

} // namespace hs::pareto
