// gnn-placement: the learned placement (issue 14). One forward pass of the shipped network gives each op a
// device and a priority adjustment; HEFT's list-scheduling pass orders the ops around it (gnn/proposal.hpp).
// With `{"gnn-placement": {"shortlist": K}}` (--policy-config) each op's K most probable devices compete by
// earliest finish instead.
#include "gnn/proposal.hpp"
#include "policies/policy.hpp"
#include "policies/policy_config.hpp"

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
    int shortlist = 1;
    if (auto section = policy_section(ctx, name())) {
      section->expect_only({"shortlist", "notes"});
      if (auto k = section->find("shortlist")) shortlist = static_cast<int>(k->as_integer(1, 1024));
    }
    const auto proposal = gnn::propose(ctx.cost, gnn::shipped_checkpoint_path());
    return shortlist == 1 ? gnn::plan_for_proposal(ctx.cost, proposal, name(), true)
                          : gnn::plan_for_shortlist(ctx.cost, proposal, shortlist, name(), true);
  }
};

} // namespace

HS_REGISTER_POLICY(GnnPlacement)

} // namespace hs
