#pragma once
// Policy parameters from a user file (`--policy-config FILE`): one JSON object whose keys are policy
// names and whose values are that policy's parameters, so one file can tune every policy of a comparison:
//
//   { "expert-grouping": { "table": { "conv2d": ["gpu"], "attention": ["npu", "gpu"], "default": ["cpu"] } },
//     "heft-dvfs": { "slack": 0.05 } }
#include "policies/policy.hpp"
#include "sim/json_input.hpp"

#include <memory>
#include <optional>
#include <string>

namespace hs {

struct PolicyConfig {
  Json json;
  std::string file;
};

// Reads and checks the file (an object whose keys are known policy names).
std::shared_ptr<const PolicyConfig> load_policy_config(const std::string& path);

// The section of the configuration for `policy`, if the context has one.
std::optional<JsonNode> policy_section(const PolicyContext& ctx, const std::string& policy);

} // namespace hs
