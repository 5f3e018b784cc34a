#include "cli/platform_patch.hpp"

#include "sim/nearest_name.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace hs::cli {
namespace {

constexpr const char* kNamedLists[] = {"devices", "links", "nodes"};

std::vector<std::string> split_path(const std::string& path, const JsonNode& where) {
  if (path.size() < 2 || path.front() != '/')
    where.fail("a platform path starts with '/', like /links/pcie_gpu/bandwidth (got '" + path + "')");
  std::vector<std::string> parts;
  std::size_t begin = 1;
  while (begin <= path.size()) {
    const auto end = std::min(path.find('/', begin), path.size());
    if (end == begin) where.fail("empty part in platform path '" + path + "'");
    parts.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

std::vector<std::string> names_in(const Json& list) {
  std::vector<std::string> names;
  for (const auto& e : list)
    if (e.is_object() && e.contains("name") && e["name"].is_string()) names.push_back(e["name"]);
  return names;
}

// The element of a list of named objects called `name`, or nullptr.
template <class J> J* named(J& list, const std::string& name) {
  for (auto& e : list)
    if (e.is_object() && e.contains("name") && e["name"] == name) return &e;
  return nullptr;
}

template <class J> J& walk(J& platform, const std::string& path, const JsonNode& where) {
  J* node = &platform;
  std::string walked;
  for (const std::string& part : split_path(path, where)) {
    if (node->is_array()) {
      J* next = named(*node, part);
      if (!next && !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit) &&
          std::stoul(part) < node->size())
        next = &(*node)[std::stoul(part)];
      if (!next)
        where.fail("platform path '" + path + "': no '" + part + "' in " + (walked.empty() ? "/" : walked) +
                   did_you_mean(part, names_in(*node)));
      node = next;
    } else if (node->is_object()) {
      if (!node->contains(part)) {
        std::vector<std::string> keys;
        for (auto it = node->begin(); it != node->end(); ++it)
          keys.push_back(it.key());
        where.fail("platform path '" + path + "': " + (walked.empty() ? "the platform" : walked) +
                   " has no field '" + part + "'" + did_you_mean(part, keys));
      }
      node = &(*node)[part];
    } else {
      where.fail("platform path '" + path + "': " + walked + " is a value, not an object or a list");
    }
    walked += "/" + part;
  }
  if (node->is_object() || node->is_array())
    where.fail("platform path '" + path + "' names an object or a list; name one of its fields");
  return *node;
}

void check_replacement(const Json& old_value, const JsonNode& value) {
  const Json& v = value.raw();
  if (old_value.is_string()) {
    if (!v.is_string())
      value.fail("must be a string like the value it replaces (" + old_value.dump() + ")" +
                 (v.is_number() ? ": a quantity needs its unit" : ""));
    if (const auto family = unit_family(old_value.get<std::string>())) {
      if (!unit_family(v.get<std::string>()))
        value.fail("needs a unit: it replaces " + old_value.dump() + ", a " +
                   std::string(units::name(*family)));
      value.as_quantity(*family); // the same family, and a value that parses
    }
  } else if (old_value.is_number()) {
    if (!v.is_number()) value.fail("must be a number like the value it replaces (" + old_value.dump() + ")");
    value.as_number();
  } else if (old_value.is_boolean()) {
    value.as_bool();
  }
}

void remove_named(Json& platform, const std::string& list, const JsonNode& name_node) {
  const std::string name = name_node.as_string();
  if (!platform.contains(list) || !named(platform[list], name))
    name_node.fail("no " + list + " entry '" + name + "' to remove" +
                   (platform.contains(list) ? did_you_mean(name, names_in(platform[list])) : std::string()));
  auto& entries = platform[list];
  entries.erase(
      std::remove_if(entries.begin(), entries.end(), [&](const Json& e) { return e["name"] == name; }),
      entries.end());
  if (list != "devices") return;
  // A device takes with it the links that end at it, its routes and its unreachable pairs.
  const auto mentions = [&](const Json& e, const char* key) {
    if (!e.is_object() || !e.contains(key) || !e[key].is_array()) return false;
    return std::find(e[key].begin(), e[key].end(), Json(name)) != e[key].end();
  };
  if (platform.contains("links"))
    for (auto it = platform["links"].begin(); it != platform["links"].end();)
      it = mentions(*it, "ends") ? platform["links"].erase(it) : it + 1;
  if (platform.contains("routes"))
    for (auto it = platform["routes"].begin(); it != platform["routes"].end();)
      it = it->is_object() && (it->value("from", "") == name || it->value("to", "") == name)
               ? platform["routes"].erase(it)
               : it + 1;
  if (platform.contains("unreachable"))
    for (auto it = platform["unreachable"].begin(); it != platform["unreachable"].end();)
      it = it->is_array() && std::find(it->begin(), it->end(), Json(name)) != it->end()
               ? platform["unreachable"].erase(it)
               : it + 1;
}

void add_entry(Json& platform, const std::string& list, const JsonNode& entry) {
  if (!entry.raw().is_object()) entry.fail("expected an object");
  Json added = entry.raw();
  if (auto like = entry.find("like")) {
    const std::string model = like->as_string();
    const Json* original = platform.contains(list) ? named(platform[list], model) : nullptr;
    if (!original)
      like->fail("no " + list + " entry '" + model + "' to copy" +
                 (platform.contains(list) ? did_you_mean(model, names_in(platform[list])) : std::string()));
    added = *original;
    for (auto it = entry.raw().begin(); it != entry.raw().end(); ++it)
      if (it.key() != "like") added[it.key()] = it.value();
  }
  const std::string name = entry.at("name").as_string();
  if (platform.contains(list) && named(platform[list], name))
    entry.at("name").fail(list + " already has an entry '" + name + "'");
  platform[list].push_back(std::move(added));
}

} // namespace

std::optional<units::Quantity> unit_family(const std::string& text) {
  using Q = units::Quantity;
  if (std::none_of(text.begin(), text.end(), ::isalpha)) return std::nullopt;
  for (Q q : {Q::Time, Q::Bandwidth, Q::Flops, Q::Power, Q::Bytes, Q::Energy}) {
    try {
      units::parse(text, q);
      return q;
    } catch (const std::invalid_argument&) {
    }
  }
  return std::nullopt;
}

const Json& platform_field(const Json& platform, const std::string& path, const JsonNode& where) {
  return walk(platform, path, where);
}

void set_platform_field(Json& platform, const std::string& path, const JsonNode& value,
                        const JsonNode& where) {
  Json& field = walk(platform, path, where);
  check_replacement(field, value);
  field = value.raw();
}

void apply_platform_variant(Json& platform, const JsonNode& variant) {
  variant.expect_only({"label", "set", "add", "remove"});
  if (auto remove = variant.find("remove")) {
    for (const auto& [list, names] : remove->members()) {
      if (std::find(std::begin(kNamedLists), std::end(kNamedLists), list) == std::end(kNamedLists))
        names.fail("can remove devices, links or nodes");
      for (const auto& n : names.items())
        remove_named(platform, list, n);
    }
  }
  if (auto add = variant.find("add")) {
    for (const auto& [list, entries] : add->members()) {
      if (list == "routes" || list == "unreachable") {
        for (const auto& e : entries.items())
          platform[list].push_back(e.raw());
        continue;
      }
      if (std::find(std::begin(kNamedLists), std::end(kNamedLists), list) == std::end(kNamedLists))
        entries.fail("can add devices, links, nodes, routes or unreachable pairs");
      for (const auto& e : entries.items())
        add_entry(platform, list, e);
    }
  }
  if (auto set = variant.find("set"))
    for (const auto& [path, value] : set->members())
      set_platform_field(platform, path, value, value);
}

} // namespace hs::cli
