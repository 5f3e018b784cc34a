#include "policies/dynamic_policy.hpp"
#include "policies/policy.hpp"
#include "sim/nearest_name.hpp"

#include <algorithm>
#include <stdexcept>

namespace hs {

PolicyRegistry& PolicyRegistry::instance() {
  static PolicyRegistry registry;
  return registry;
}

bool PolicyRegistry::add(Policy p) {
  // Static and run-time policies share one namespace, checked from both sides (registration order across
  // files is unspecified).
  if (find(p.name()) || DynamicPolicyRegistry::instance().find(p.name()))
    throw std::logic_error("policy '" + p.name() + "' registered twice");
  policies_.push_back(std::move(p));
  return true;
}

const Policy* PolicyRegistry::find(const std::string& name) const {
  for (const auto& p : policies_)
    if (p.name() == name) return &p;
  return nullptr;
}

std::vector<Policy> PolicyRegistry::all() const {
  auto out = policies_;
  std::sort(out.begin(), out.end(), [](const Policy& a, const Policy& b) { return a.name() < b.name(); });
  return out;
}

std::vector<std::string> PolicyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& p : all())
    out.push_back(p.name());
  return out;
}

const Policy& policy_by_name(const std::string& name) {
  if (const Policy* p = PolicyRegistry::instance().find(name)) return *p;
  const auto known = PolicyRegistry::instance().names();
  throw std::invalid_argument("unknown policy '" + name + "'" + did_you_mean(name, known) +
                              " (known: " + name_list(known) + ")");
}

} // namespace hs
