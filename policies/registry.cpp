#include "policies/policy.hpp"

#include <algorithm>

namespace hs {

std::string Policy::mode() const {
  if (plans_ahead() && decides_at_run_time()) return "hybrid";
  return plans_ahead() ? "static" : "run-time";
}

Registry<Policy>& policy_registry() {
  static Registry<Policy> registry("policy");
  return registry;
}

std::vector<std::string> all_policy_names() {
  return policy_registry().names();
}

std::vector<std::string> compared_policy_names() {
  std::vector<std::string> names;
  for (const Policy& p : policy_registry().all())
    if (p.in_comparisons()) names.push_back(p.name());
  return names;
}

std::vector<Policy> planning_policies() {
  std::vector<Policy> out;
  for (const Policy& p : policy_registry().all())
    if (p.plans_ahead()) out.push_back(p);
  return out;
}

} // namespace hs
