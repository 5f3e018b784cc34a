// gnn-placement: the learned placement (issue 14). One forward pass of the shipped network gives each op a
// distribution over the devices and a priority adjustment; HEFT's list-scheduling pass orders the ops by the
// adjusted ranks, and each op goes to the earliest-finishing of its two most probable choices (devices the
// network cannot tell apart counting as one; gnn/proposal.hpp). `{"gnn-placement": {"shortlist": K}}`
// (--policy-config) sets the number of choices: 1 keeps only the network's most probable ones.
#include "gnn/proposal.hpp"
#include "policies/policy.hpp"
#include "policies/policy_config.hpp"

namespace hs {
namespace {

struct GnnPlacement {
  std::string name() const { return "gnn-placement"; }
  std::string description() const {
    return "a message-passing network's two most probable devices per op (one forward pass; after Placeto, "
           "Addanki et al. NeurIPS 2019), HEFT's list scheduling choosing between them";
  }
  // Out of `compare` and the studies' every-policy tables: its plans depend on a trained file, and a build
  // without libtorch refuses it (results/gnn/ compares it explicitly).
  bool in_comparisons() const { return false; }
  Plan plan(const PolicyContext& ctx) const {
    int shortlist = 2; // chosen before the held-out cases of results/gnn/ were run
    if (auto section = policy_section(ctx, name())) {
      section->expect_only({"shortlist", "notes"});
      if (auto k = section->find("shortlist")) shortlist = static_cast<int>(k->as_integer(1, 1024));
    }
    const auto proposal = gnn::propose(ctx.cost, gnn::shipped_checkpoint_path());
    return gnn::plan_for_shortlist(ctx.cost, proposal, shortlist, name(), true);
  }
};

} // namespace

HS_REGISTER_POLICY(GnnPlacement)

} // namespace hs
