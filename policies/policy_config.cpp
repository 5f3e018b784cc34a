#include "policies/policy_config.hpp"

#include "policies/policy.hpp"
#include "sim/nearest_name.hpp"

#include <algorithm>

namespace hs {

std::shared_ptr<const PolicyConfig> load_policy_config(const std::string& path) {
  auto config = std::make_shared<PolicyConfig>();
  config->json = read_json_file(path);
  config->file = path;
  const JsonNode root(config->json, path, "");
  const auto names = all_policy_names();
  for (const auto& [name, section] : root.members()) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      section.fail("unknown policy '" + name + "'" + did_you_mean(name, names) +
                   " (see `heterosim policies`)");
    (void)section.members(); // each section must be an object
  }
  return config;
}

std::optional<JsonNode> policy_section(const PolicyContext& ctx, const std::string& policy) {
  if (!ctx.config) return std::nullopt;
  return JsonNode(ctx.config->json, ctx.config->file, "").find(policy);
}

} // namespace hs
