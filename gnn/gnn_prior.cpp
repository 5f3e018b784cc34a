// The proposal prior "gnn": the shipped network's per-op device distribution (its softmax), which the Pareto
// search samples around and sharpens online (policies/pareto/prior_guide.hpp; issue 14's "use 2"). Built
// only with libtorch, like gnn-placement, so a build without it lacks the name rather than refusing it.
#include "gnn/proposal.hpp"
#include "policies/pareto/proposal_prior.hpp"

namespace hs::gnn {

HS_REGISTER_PROPOSAL_PRIOR(gnn, {"gnn",
                                 "the gnn-placement network's softmax over each op's devices "
                                 "(models/gnn-placement.pt)",
                                 [](const CostModel& cost) {
                                   return device_probabilities(cost, shipped_checkpoint_path());
                                 }})

} // namespace hs::gnn
