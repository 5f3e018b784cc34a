#include "sim/platform_routes.hpp"

#include "sim/nearest_name.hpp"
#include "sim/topology.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace hs {
namespace {

using Pair = std::pair<DeviceId, DeviceId>;

const std::string& device_name(const Platform& p, DeviceId d) {
  return p.devices[static_cast<std::size_t>(d)].name;
}

void read_nodes(Platform& p, const JsonNode& root) {
  const auto nodes = root.find("nodes");
  if (!nodes) return;
  for (const auto& n : nodes->items()) {
    n.expect_only({"name", "kind", "source", "notes"});
    TopologyNode node{n.at("name").as_string(), n.at("kind").as_string(), n.string_or("source", "")};
    if (node.name.empty()) n.at("name").fail("a node needs a name");
    // One namespace for devices, links and nodes, so a name in "ends" or a message means one thing.
    if (p.find_device(node.name))
      n.at("name").fail("'" + node.name +
                        "' is a device: a node is a switch or bridge, with a name of its own");
    if (p.find_link(node.name)) n.at("name").fail("'" + node.name + "' is a link's name");
    for (const auto& other : p.nodes)
      if (other.name == node.name) n.at("name").fail("duplicate node name '" + node.name + "'");
    if (node.kind != "switch" && node.kind != "bridge")
      n.at("kind").fail("a node's kind is \"switch\" or \"bridge\" (got \"" + node.kind + "\")");
    p.nodes.push_back(std::move(node));
  }
}

void read_ends(Platform& p, const JsonNode& root) {
  const auto links = root.find("links");
  if (!links) return;
  std::vector<std::string> known;
  for (const auto& d : p.devices)
    known.push_back(d.name);
  for (const auto& n : p.nodes)
    known.push_back(n.name);
  const auto items = links->items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto ends = items[i].find("ends");
    if (!ends) continue;
    auto names = ends->as_string_list();
    if (names.size() != 2) ends->fail("a link has two ends, for example [\"gpu0\", \"pcie_switch0\"]");
    for (std::size_t k = 0; k < 2; ++k)
      if (std::find(known.begin(), known.end(), names[k]) == known.end())
        ends->items()[k].fail("unknown device or node '" + names[k] + "'" + did_you_mean(names[k], known) +
                              " (nodes are declared under \"nodes\")");
    if (names[0] == names[1])
      ends->fail("both ends are '" + names[0] + "': a link joins two different nodes");
    p.links[i].ends = std::move(names);
  }
  // Half a topology would compute routes over some links and silently never use the others.
  for (std::size_t i = 0; i < items.size(); ++i)
    if (p.links[i].ends.empty() && p.has_topology())
      items[i].fail("link '" + p.links[i].name +
                    "' has no \"ends\": once one link gives its ends, every link must");
}

void read_transit_devices(Platform& p, const JsonNode& root) {
  const auto transit = root.find("transit_devices");
  if (!transit) return;
  std::vector<std::string> devices;
  for (const auto& d : p.devices)
    devices.push_back(d.name);
  const auto names = transit->as_string_list();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!p.find_device(names[i]))
      transit->items()[i].fail("unknown device '" + names[i] + "'" + did_you_mean(names[i], devices));
    if (std::count(names.begin(), names.end(), names[i]) > 1)
      transit->items()[i].fail("'" + names[i] + "' is listed twice");
  }
  p.transit_devices = names;
}

Route read_hops(const Platform& p, const JsonNode& links) {
  Route r;
  const auto link_nodes = links.items();
  if (link_nodes.empty()) links.fail("a route needs at least one link");
  for (const auto& ln : link_nodes) {
    // A hop is a link name (crossed in its forward direction) or {"link": name, "reverse": true}:
    // a path through a switch goes up one link and down the next.
    bool reverse = false;
    std::string name;
    if (ln.raw().is_object()) {
      ln.expect_only({"link", "reverse"});
      name = ln.at("link").as_string();
      if (auto rev = ln.find("reverse")) reverse = rev->as_bool();
    } else {
      name = ln.as_string();
    }
    const auto id = p.find_link(name);
    if (!id) ln.fail("unknown link '" + name + "'");
    r.hops.push_back({*id, !reverse});
  }
  return r;
}

// The file's "routes": each pair it writes, and the reverse of each symmetrical one unless the file writes
// that reverse too.
std::map<Pair, Route> read_written_routes(const Platform& p, const JsonNode& root) {
  std::map<Pair, Route> written, mirrored;
  const auto routes = root.find("routes");
  if (!routes) return written;
  for (const auto& r : routes->items()) {
    r.expect_only({"from", "to", "links", "symmetrical"});
    const auto from_name = r.at("from").as_string();
    const auto to_name = r.at("to").as_string();
    const auto from = p.find_device(from_name);
    const auto to = p.find_device(to_name);
    if (!from) r.at("from").fail("unknown device '" + from_name + "'");
    if (!to) r.at("to").fail("unknown device '" + to_name + "'");
    if (*from == *to) r.fail("a route needs two different devices");
    Route forward = read_hops(p, r.at("links"));
    if (p.has_topology())
      if (const auto bad = check_walk(p, *from, *to, forward))
        (bad->hop < forward.hops.size() ? r.at("links").items()[bad->hop] : r.at("links")).fail(bad->what);
    if (written.count({*from, *to}))
      r.fail("a route from '" + from_name + "' to '" + to_name + "' is already defined");
    const bool symmetrical = r.find("symmetrical") ? r.at("symmetrical").as_bool() : true;
    if (symmetrical) mirrored[{*to, *from}] = forward.reversed();
    written[{*from, *to}] = std::move(forward);
  }
  for (auto& [pair, route] : mirrored)
    if (!written.count(pair)) written[pair] = std::move(route);
  return written;
}

std::set<Pair> read_unreachable(const Platform& p, const JsonNode& root,
                                const std::map<Pair, Route>& written) {
  std::set<Pair> unreachable;
  const auto u = root.find("unreachable");
  if (!u) return unreachable;
  for (const auto& pair : u->items()) {
    const auto names = pair.as_string_list();
    if (names.size() != 2) pair.fail("expected a pair of device names, [\"a\", \"b\"]");
    const auto a = p.find_device(names[0]), b = p.find_device(names[1]);
    if (!a || !b) pair.fail("unknown device '" + (a ? names[1] : names[0]) + "'");
    if (written.count({*a, *b}) || written.count({*b, *a}))
      pair.fail("'" + names[0] + "' and '" + names[1] + "' have a route");
    unreachable.insert({*a, *b});
    unreachable.insert({*b, *a});
  }
  return unreachable;
}

// A device at neither end of any link gets its own message, clearer than one per missing pair.
void check_every_device_linked(const Platform& p, const std::set<Pair>& unreachable) {
  std::set<std::string> linked;
  for (const Link& l : p.links)
    linked.insert(l.ends.begin(), l.ends.end());
  for (DeviceId d = 0; d < p.device_count(); ++d) {
    const std::string& name = device_name(p, d);
    if (linked.count(name)) continue;
    bool needs_link = false;
    for (DeviceId o = 0; o < p.device_count() && !needs_link; ++o)
      needs_link = o != d && !unreachable.count({d, o});
    if (needs_link)
      throw InputError(p.file, "devices[" + std::to_string(d) + "]",
                       "device '" + name + "' is at neither end of any link, so no route reaches it: add a " +
                           "link with \"ends\": [\"" + name + "\", ...]");
  }
}

} // namespace

void read_topology(Platform& p, const JsonNode& root) {
  read_nodes(p, root);
  read_ends(p, root);
  read_transit_devices(p, root);
  if (!p.has_topology())
    for (const char* key : {"nodes", "transit_devices"})
      if (root.has(key) && !root.at(key).raw().empty())
        root.at(key).fail("no link gives its \"ends\", so there is no topology for this to belong to");
}

void read_routes(Platform& p, const JsonNode& root) {
  const auto written = read_written_routes(p, root);
  const auto unreachable = read_unreachable(p, root, written);
  for (const auto& [pair, route] : written)
    p.set_route(pair.first, pair.second, route);
  std::shared_ptr<const TopologyRoutes> topology;
  if (p.has_topology()) {
    topology = std::make_shared<const TopologyRoutes>(p);
    p.compute_other_routes(topology, {unreachable.begin(), unreachable.end()});
    check_every_device_linked(p, unreachable);
  }
  // Every pair of devices needs a route, or a declaration that it has none: a missing route would load and
  // quietly constrain every schedule. Checked by which devices a path joins, without building the routes.
  const std::string how = p.has_topology() ? "no path of links joins them (paths pass through switches and "
                                             "bridges, and through devices only when listed in "
                                             "\"transit_devices\"): add a link, or a route,"
                                           : "add one,";
  const auto n = static_cast<std::size_t>(p.device_count());
  for (DeviceId a = 0; a < p.device_count(); ++a) {
    const std::vector<bool> joined = topology ? topology->joined(a) : std::vector<bool>(n, false);
    for (DeviceId b = 0; b < p.device_count(); ++b)
      if (a != b && !joined[static_cast<std::size_t>(b)] && !written.count({a, b}) &&
          !unreachable.count({a, b}))
        throw InputError(p.file, p.has_topology() ? "links" : "routes",
                         "no route from '" + device_name(p, a) + "' to '" + device_name(p, b) + "': " + how +
                             " or list the pair under \"unreachable\" if no transfer can join them");
  }
}

} // namespace hs
