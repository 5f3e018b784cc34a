#pragma once
// One registry for every plug-in family (policies, workload builders, graph file formats, commands, output
// writers), as SimGrid keeps one ModuleGroup for all of its own. Plug-ins add themselves from static
// initialisers, so a new one is one file and one registration line; the family owns the name checks:
// a name registered twice is refused whichever was first, and an unknown name gets the nearest known one.
//
//   Registry<Policy>& policy_registry() { static Registry<Policy> r("policy"); return r; } // one per family
//   policy_registry().add(Policy(Heft{}));          // the item's name: item.name() or item.name
//   const Policy& p = policy_registry().get("heft"); // "unknown policy 'hft' (did you mean 'heft'?) ..."
#include "sim/nearest_name.hpp"

#include <algorithm>
#include <concepts>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

template <class Item>
concept NamedByMethod = requires(const Item& item) {
  { item.name() } -> std::convertible_to<std::string>;
};
template <class Item>
concept NamedByField = requires(const Item& item) {
  { item.name } -> std::convertible_to<std::string>;
};

template <class Item>
requires NamedByMethod<Item> || NamedByField<Item>
class Registry {
public:
  // `family` names the items in messages ("policy", "workload builder").
  explicit Registry(std::string family) : family_(std::move(family)) {}

  static std::string name_of(const Item& item) {
    if constexpr (NamedByMethod<Item>)
      return item.name();
    else
      return item.name;
  }

  // Refuses (std::logic_error) an empty name or one already registered. Returns true, for the static
  // initialisers that call it.
  bool add(Item item) {
    const std::string name = name_of(item);
    if (name.empty()) throw std::logic_error("a " + family_ + " registered without a name");
    if (find(name)) throw std::logic_error(family_ + " '" + name + "' registered twice");
    const auto at = std::lower_bound(items_.begin(), items_.end(), name,
                                     [](const Item& x, const std::string& n) { return name_of(x) < n; });
    items_.insert(at, std::move(item));
    return true;
  }

  const Item* find(const std::string& name) const {
    const auto at = std::lower_bound(items_.begin(), items_.end(), name,
                                     [](const Item& x, const std::string& n) { return name_of(x) < n; });
    return at != items_.end() && name_of(*at) == name ? &*at : nullptr;
  }

  // Throws std::invalid_argument naming the nearest known name and listing them all.
  const Item& get(const std::string& name) const {
    if (const Item* item = find(name)) return *item;
    const auto known = names();
    throw std::invalid_argument("unknown " + family_ + " '" + name + "'" + did_you_mean(name, known) +
                                " (known: " + name_list(known) + ")");
  }

  const std::vector<Item>& all() const { return items_; } // sorted by name
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const Item& item : items_)
      out.push_back(name_of(item));
    return out;
  }
  const std::string& family_name() const { return family_; }

  // For tests that register a plug-in of their own and must leave the family as they found it.
  bool remove(const std::string& name) {
    const auto at =
        std::find_if(items_.begin(), items_.end(), [&](const Item& x) { return name_of(x) == name; });
    if (at == items_.end()) return false;
    items_.erase(at);
    return true;
  }

private:
  std::string family_;
  std::vector<Item> items_; // kept sorted by name
};

} // namespace hs
