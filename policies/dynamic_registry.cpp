#include "policies/dynamic_policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace hs {

DynamicPolicyRegistry& DynamicPolicyRegistry::instance() {
  static DynamicPolicyRegistry registry;
  return registry;
}

bool DynamicPolicyRegistry::add(DynamicPolicy p) {
  if (find(p.name()) || PolicyRegistry::instance().find(p.name()))
    throw std::logic_error("policy '" + p.name() + "' registered twice");
  policies_.push_back(std::move(p));
  return true;
}

const DynamicPolicy* DynamicPolicyRegistry::find(const std::string& name) const {
  for (const auto& p : policies_)
    if (p.name() == name) return &p;
  return nullptr;
}

std::vector<DynamicPolicy> DynamicPolicyRegistry::all() const {
  auto out = policies_;
  std::sort(out.begin(), out.end(),
            [](const DynamicPolicy& a, const DynamicPolicy& b) { return a.name() < b.name(); });
  return out;
}

std::vector<std::string> compared_policy_names() {
  std::vector<std::string> names;
  for (const auto& name : all_policy_names())
    if (const Policy* p = PolicyRegistry::instance().find(name); !p || p->in_comparisons())
      names.push_back(name);
  return names;
}

std::vector<std::string> all_policy_names() {
  auto names = PolicyRegistry::instance().names();
  for (const auto& p : DynamicPolicyRegistry::instance().all())
    names.push_back(p.name());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace hs
