// gnn-placement: the learned placement (issue 14). One forward pass of the shipped network gives each op a
// device and a priority adjustment; HEFT's list-scheduling pass orders the ops around it (gnn/proposal.hpp).
#include "gnn/proposal.hpp"
#include "policies/policy.hpp"

namespace hs {
namespace {

struct GnnPlacement {
  std::string name() const { return "gnn-placement"; }
  std::string description() const {
    return "a message-passing network's device per op (one forward pass; after Placeto, Addanki et al. "
           "NeurIPS 2019), ordered by HEFT's list scheduling";
  }
  // Out of `compare` and the studies' every-policy tables: its plans depend on a trained file, and a build
  // without libtorch refuses it (results/gnn/ compares it explicitly).
  bool in_comparisons() const { return false; }
  Plan plan(const PolicyContext& ctx) const {
    const auto proposal = gnn::propose(ctx.cost, gnn::shipped_checkpoint_path());
    return gnn::plan_for_proposal(ctx.cost, proposal, name(), true);
  }
};

} // namespace

HS_REGISTER_POLICY(GnnPlacement)

} // namespace hs
