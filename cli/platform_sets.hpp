#pragma once
// `run --set PATH=VALUE`: a platform's field changed for one run, by the paths and rules a sweep axis uses
// (cli/platform_patch.hpp: the field must exist, a quantity keeps its unit family), so a what-if on the
// command line needs no copy of the platform file.
#include "sim/platform.hpp"

#include <string>
#include <vector>

namespace hs::cli {

// The platform `name_or_path` names with each "PATH=VALUE" of `sets` applied in order; load_platform's
// when `sets` is empty. VALUE is a number where it reads as one, else text ("15us"). InputError naming the
// --set for a malformed one, an unknown path or a value of another unit family, and for a platform that is
// not a plain platform file (a cluster template or a SimGrid XML file).
Platform load_platform_with_sets(const std::string& name_or_path, const std::vector<std::string>& sets);

// What a run's report calls the platform: its name, and what --set changed ("l4-server with --set
// /devices/gpu0/issue_overhead=20us").
std::string platform_label(const std::string& name, const std::vector<std::string>& sets);

} // namespace hs::cli
