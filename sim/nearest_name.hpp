#pragma once
// "Did you mean ...?" for unknown names: the known name nearest by edit distance, when it is near enough
// to be a typo (at most a third of the name's letters, at least one) and no other is as near.
#include <string>
#include <vector>

namespace hs {

// " (did you mean 'heft'?)", or "" when no known name is near.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);
// Known names joined with ", ".
std::string name_list(const std::vector<std::string>& known);

} // namespace hs
