#include "workloads/eager_issue.hpp"

#include "workloads/layer_roles.hpp"

namespace hs {

void charge_eager_issue(Graph& g, bool training) {
  const OpRoles roles = roles_of(g);
  for (std::size_t o = 0; o < g.ops.size(); ++o)
    g.ops[o].host_issue = roles.pass[o] != Pass::Forward ? kEagerBackwardIssue
                          : training                     ? kEagerTrainingForwardIssue
                                                         : kEagerInferenceForwardIssue;
}

} // namespace hs
