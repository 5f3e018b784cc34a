#pragma once
// The search's encoding, shared by the archive search and NSGA-II: one integer gene per super-node (an
// index into its allowed devices), one 0/1 gene per fusion candidate, and one gene per split candidate
// (0: not split; k: the second half goes to the k-th device that can run the GEMM). Decoding applies
// the rewrites (and any precision demotion the placement implies), maps the placement onto the
// rewritten ops, and orders each device's queue by upward rank (placement_order.hpp).
#include "policies/pareto/coarsen.hpp"
#include "policies/pareto/rewritten_model.hpp"
#include "sim/plan.hpp"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hs::pareto {

using Genome = std::vector<int>;

struct EncodingOptions {
  RewriteOptions rewrites;
  CoarsenOptions coarsen;
  bool fusion = true;
  bool splitting = true;
};

struct Decoded {
  std::shared_ptr<const RewrittenModel> rewritten; // null when the graph is unchanged
  const CostModel* base = nullptr;                 // the workload's cost model
  Plan plan;
  RewriteDecision decision;
  std::vector<DeviceId> op_device;    // per original op (the first half's device for a split op)
  std::vector<DeviceId> split_device; // per split candidate: the second half's device, or -1
  double precision_penalty = 0.0;

  // The cost model the plan refers to (a rewritten graph is built with names on first use).
  const CostModel& cost() const { return rewritten ? rewritten->cost() : *base; }
};

class Encoding {
public:
  Encoding(const CostModel& cost, EncodingOptions o);

  const CostModel& base() const { return *cost_; }
  const Coarsening& coarse() const { return coarse_; }
  const RewriteCandidates& candidates() const { return *candidates_; }
  const FlatGraph& base_flat() const { return base_flat_; }
  std::size_t size() const { return upper_.size(); }
  const std::vector<int>& upper() const { return upper_; } // inclusive; lower bounds are 0
  std::size_t fusion_gene(std::size_t f) const { return coarse_.nodes.size() + f; }
  std::size_t split_gene(std::size_t s) const {
    return coarse_.nodes.size() + candidates_->fusions.size() + s;
  }
  const std::vector<DeviceId>& split_targets(std::size_t s) const { return split_targets_[s]; }

  // Each super-node on the allowed device that carries most of its ops' time in `plan`; no rewrites.
  Genome project(const Plan& plan) const;
  // Every super-node on `dev` where allowed (else its fastest device); no rewrites.
  Genome all_on(DeviceId dev) const;
  Decoded decode(const Genome& genome) const;

private:
  const CostModel* cost_;
  EncodingOptions options_;
  std::shared_ptr<RewriteCandidates> candidates_; // shared with the rewritten models made from it
  FlatGraph base_flat_;
  Coarsening coarse_;
  std::vector<std::vector<DeviceId>> split_targets_;
  std::vector<int> upper_;
  // Placement moves keep the rewrite decision, so recent rewritten graphs are reused (results are the
  // same; only the time to rebuild a graph and its cost model is saved).
  std::shared_ptr<const RewrittenModel> rewritten_for(const RewriteDecision& d) const;
  mutable std::map<std::string, std::shared_ptr<const RewrittenModel>> cache_;
  mutable std::deque<std::string> cache_order_;
};

} // namespace hs::pareto
