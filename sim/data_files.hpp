#pragma once
// Files HeteroSim ships in a folder of the data directory (preset platforms, calibrations), found by name
// as `--platform` and `--calibration` take them: a path that exists is the file; otherwise the name is
// looked up as <directory>/<prefix><name>.json.
#include <string>
#include <vector>

namespace hs {

// The names in `directory`: stems of its *.json files that start with `prefix`, the prefix removed, sorted.
std::vector<std::string> data_file_names(const std::string& directory, const std::string& prefix);

// The file `name_or_path` stands for. Throws InputError when neither: "no such file" for a name with a
// directory or an extension (a file the user meant), else that there is no `what` of that name, with a
// did-you-mean among the names in `directory` and `hint(names)` after.
std::string find_data_file(const std::string& name_or_path, const std::string& directory,
                           const std::string& prefix, const std::string& what,
                           std::string (*hint)(const std::vector<std::string>& names));

} // namespace hs
