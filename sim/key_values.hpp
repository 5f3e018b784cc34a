#pragma once
// "k1=v1,k2=v2,..." as a map, the form every spec on the command line takes: workload builders
// (random:ops=1000), generated platforms (dgx-a100-cluster:nodes=16), --parallel.
#include <map>
#include <string>
#include <vector>

namespace hs {

// An item without '=' continues the previous value as a list ("devices=P1,P2,P3"). Errors name `label`
// and the item.
std::map<std::string, std::string> parse_key_values(const std::string& label, const std::string& text);

// A list value ("P1,P2,P3") as distinct, non-empty names; errors name `label` and `key`.
std::vector<std::string> parse_name_list(const std::string& label, const std::string& key,
                                         const std::string& text);

} // namespace hs
