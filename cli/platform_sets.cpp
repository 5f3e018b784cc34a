#include "cli/platform_sets.hpp"

#include "cli/platform_patch.hpp"
#include "sim/error.hpp"

#include <cmath>

namespace hs::cli {

namespace {

// VALUE as JSON: a finite number where the whole text reads as one, else the text.
Json value_of(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return text;
}

} // namespace

Platform load_platform_with_sets(const std::string& name_or_path, const std::vector<std::string>& sets) {
  if (sets.empty()) return load_platform(name_or_path);
  const std::string path = platform_file(name_or_path);
  Json platform = read_json_file(path);
  if (!platform.is_object() || platform.value("format", "") != "heterosim-platform")
    throw InputError(path, "",
                     "--set changes a platform file (format heterosim-platform), not a cluster "
                     "template or a SimGrid file");
  for (const std::string& set : sets) {
    const Json where_text = set;
    const JsonNode where(where_text, "--set", set);
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == set.size())
      where.fail("expected PATH=VALUE, like /devices/gpu0/issue_overhead=15us");
    const Json value = value_of(set.substr(eq + 1));
    set_platform_field(platform, set.substr(0, eq), JsonNode(value, "--set", set), where);
  }
  return parse_platform(platform.dump(), path);
}

std::string platform_label(const std::string& name, const std::vector<std::string>& sets) {
  std::string label = name;
  for (std::size_t i = 0; i < sets.size(); ++i)
    label.append(i == 0 ? " with --set " : ", ").append(sets[i]);
  return label;
}

} // namespace hs::cli
