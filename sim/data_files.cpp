#include "sim/data_files.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"

#include <algorithm>
#include <filesystem>

namespace hs {

std::vector<std::string> data_file_names(const std::string& directory, const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  if (fs::is_directory(directory, ec))
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
      const std::string stem = entry.path().stem().string();
      if (entry.path().extension() == ".json" && stem.rfind(prefix, 0) == 0)
        names.push_back(stem.substr(prefix.size()));
    }
  std::sort(names.begin(), names.end());
  return names;
}

std::string find_data_file(const std::string& name_or_path, const std::string& directory,
                           const std::string& prefix, const std::string& what,
                           std::string (*hint)(const std::vector<std::string>& names)) {
  if (path_exists(name_or_path)) return name_or_path;
  // A name with a directory or an extension is a file the user meant, not a shipped one.
  if (looks_like_a_path(name_or_path)) throw InputError(name_or_path, "", "no such file");
  const std::string shipped = (std::filesystem::path(directory) / (prefix + name_or_path + ".json")).string();
  if (!path_exists(shipped)) {
    const std::vector<std::string> names = data_file_names(directory, prefix);
    throw InputError(name_or_path, "",
                     "no such file, and no " + what + " of that name" + did_you_mean(name_or_path, names) +
                         " in " + directory + hint(names));
  }
  return shipped;
}

} // namespace hs
