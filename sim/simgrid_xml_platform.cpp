#include "sim/simgrid_xml_platform.hpp"

#include "sim/simgrid_units.hpp"
#include "sim/simgrid_xml_zone.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace hs {

bool is_simgrid_xml_path(const std::string& path) {
  return std::filesystem::path(path).extension() == ".xml";
}

namespace {

using sgxml::expect_attributes;
using sgxml::fail;
using sgxml::required;

// Defaults for what a SimGrid host does not describe (platforms/README.md, "SimGrid platforms"): memory
// that never limits a run and never takes longer than the flops, so an op costs flops / speed as in SimGrid.
constexpr double default_memory_capacity = 1125899906842624.0; // 1 PiB
constexpr double default_memory_bandwidth = 1e18;              // 1 EB/s
constexpr int default_copy_engines =
    64; // SimGrid does not queue transfers at a host: enough for any plan here
const char* const default_precisions = "fp64,fp32,tf32,fp16,bf16,int8";

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, sep);) {
    const auto first = item.find_first_not_of(" \t\n"), last = item.find_last_not_of(" \t\n");
    out.push_back(first == std::string::npos ? "" : item.substr(first, last - first + 1));
  }
  return out;
}

double plain_number(const std::string& file, int line, const std::string& what, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  fail(file, line, what + ": '" + text + "' is not a non-negative number");
}

// wattage_per_state: "idle:one-core:all-cores" (or "idle:busy") per p-state, comma-separated; the busy power
// is the all-cores one, since a HeteroSim op uses the whole device.
Json pstates(const std::string& file, const sgxml::HostDef& h) {
  const auto w = h.props.find("wattage_per_state");
  const auto states = w == h.props.end() ? std::vector<std::string>{} : split(w->second, ',');
  if (w != h.props.end() && states.size() != h.speeds.size())
    fail(file, h.line,
         "host '" + h.id + "': wattage_per_state gives " + std::to_string(states.size()) +
             " p-states, speed gives " + std::to_string(h.speeds.size()));
  Json out = Json::array();
  for (std::size_t i = 0; i < h.speeds.size(); ++i) {
    double idle = 0.0, busy = 0.0;
    if (!states.empty()) {
      const auto parts = split(states[i], ':');
      if (parts.size() != 2 && parts.size() != 3)
        fail(file, h.line,
             "host '" + h.id + "': wattage_per_state '" + states[i] +
                 "' is not idle:busy or "
                 "idle:one-core:all-cores");
      idle = plain_number(file, h.line, "wattage_per_state", parts.front());
      busy = plain_number(file, h.line, "wattage_per_state", parts.back());
    }
    out.push_back({{"speed", h.speeds[i] / h.speeds.front()}, {"idle", idle}, {"busy", busy}});
  }
  return out;
}

std::string prop_or(const sgxml::HostDef& h, const std::string& key, const std::string& fallback) {
  const auto it = h.props.find(key);
  return it == h.props.end() ? fallback : it->second;
}

Json device(const std::string& file, const sgxml::HostDef& h) {
  for (const auto& [key, value] : h.props)
    if (key.rfind("heterosim.", 0) == 0 && key != "heterosim.kind" && key != "heterosim.memory" &&
        key != "heterosim.memory_bandwidth" && key != "heterosim.precisions" &&
        key != "heterosim.copy_engines")
      fail(file, h.line,
           "host '" + h.id + "': unknown property '" + key +
               "' (heterosim.kind, .memory, "
               ".memory_bandwidth, .precisions, .copy_engines)");
  const auto prop_quantity = [&](const std::string& key, double (*parse)(const std::string&),
                                 double fallback) {
    const auto it = h.props.find(key);
    if (it == h.props.end()) return fallback;
    try {
      return parse(it->second);
    } catch (const std::invalid_argument& bad) {
      fail(file, h.line, "host '" + h.id + "' " + key + ": " + bad.what());
    }
  };
  const double peak = h.speeds.front() * h.cores;
  Json d{{"name", h.id}, {"kind", prop_or(h, "heterosim.kind", "cpu")}, {"peak", Json::object()}};
  for (const auto& precision : split(prop_or(h, "heterosim.precisions", default_precisions), ','))
    d["peak"][precision] = peak;
  d["memory"] = {
      {"capacity", prop_quantity("heterosim.memory", simgrid_units::size, default_memory_capacity)},
      {"bandwidth",
       prop_quantity("heterosim.memory_bandwidth", simgrid_units::bandwidth, default_memory_bandwidth)}};
  d["pstates"] = pstates(file, h);
  d["copy_engines"] = default_copy_engines;
  if (auto c = h.props.find("heterosim.copy_engines"); c != h.props.end())
    d["copy_engines"] = static_cast<int>(plain_number(file, h.line, "heterosim.copy_engines", c->second));
  d["source"] = "SimGrid platform " + file + " line " + std::to_string(h.line) + ": host '" + h.id + "', " +
                std::to_string(h.cores) +
                " core(s); memory, precisions and copy engines are HeteroSim's defaults "
                "unless heterosim.* properties give them (platforms/README.md, \"SimGrid platforms\")";
  return d;
}

sgxml::LinkDef read_link(const std::string& file, const XmlElement& e) {
  expect_attributes(file, e, {"id", "bandwidth", "latency", "sharing_policy"});
  sgxml::LinkDef l;
  l.id = required(file, e, "id");
  l.line = e.line;
  l.bandwidth = sgxml::quantity(file, e, "bandwidth", simgrid_units::bandwidth);
  l.latency = e.attribute("latency") ? sgxml::quantity(file, e, "latency", simgrid_units::time) : 0.0;
  const std::string* policy = e.attribute("sharing_policy");
  const std::string sharing = policy ? *policy : "SHARED"; // the DTD's default
  if (sharing == "SPLITDUPLEX" || sharing == "FULLDUPLEX")
    l.sharing = Sharing::SplitDuplex;
  else if (sharing != "SHARED")
    fail(file, e.line,
         "link '" + l.id + "': sharing_policy '" + sharing +
             "' is not read (SPLITDUPLEX and SHARED "
             "are; FATPIPE and WIFI have no HeteroSim equivalent: every link's bandwidth is shared by "
             "the transfers on it)");
  for (const auto& child : e.children) {
    if (child.name != "prop")
      fail(file, child.line, "<" + child.name + "> inside a <link> is not read (only <prop>)");
    expect_attributes(file, child, {"id", "value"});
    if (required(file, child, "id") != "wattage_range") continue;
    const auto parts = split(required(file, child, "value"), ':');
    if (parts.size() != 2) fail(file, child.line, "wattage_range must be idle:busy");
    l.idle_watts = plain_number(file, child.line, "wattage_range", parts[0]);
    l.busy_watts = plain_number(file, child.line, "wattage_range", parts[1]);
  }
  return l;
}

// <link_ctn id direction>: a split-duplex link is crossed UP or DOWN (or named "<id>_UP"/"<id>_DOWN"), any
// other with no direction, as SimGrid resolves them.
sgxml::Hop read_hop(const sgxml::Zone& z, const XmlElement& e) {
  expect_attributes(z.file, e, {"id", "direction"});
  std::string id = required(z.file, e, "id");
  const std::string* dir = e.attribute("direction");
  std::string direction = dir ? *dir : "NONE";
  for (const char* suffix : {"_UP", "_DOWN"}) {
    const std::string s = suffix;
    if (direction == "NONE" && id.size() > s.size() && id.compare(id.size() - s.size(), s.size(), s) == 0 &&
        !z.link_index.count(id) && z.link_index.count(id.substr(0, id.size() - s.size()))) {
      id.resize(id.size() - s.size());
      direction = s.substr(1);
    }
  }
  const auto it = z.link_index.find(id);
  if (it == z.link_index.end()) fail(z.file, e.line, "no link '" + id + "' in zone '" + z.id + "'");
  const bool split_link = z.links[static_cast<std::size_t>(it->second)].sharing == Sharing::SplitDuplex;
  if (direction != "NONE" && direction != "UP" && direction != "DOWN")
    fail(z.file, e.line, "direction '" + direction + "' is not UP, DOWN or NONE");
  if (split_link && direction == "NONE")
    fail(z.file, e.line, "link '" + id + "' is SPLITDUPLEX: give direction=\"UP\" or \"DOWN\"");
  if (!split_link && direction != "NONE")
    fail(z.file, e.line, "link '" + id + "' is not SPLITDUPLEX: it has no direction " + direction);
  return {it->second, direction != "DOWN"};
}

void read_route(sgxml::Zone& z, const XmlElement& e) {
  expect_attributes(z.file, e, {"src", "dst", "symmetrical"});
  const auto endpoint = [&](const std::string& key) {
    const std::string& name = required(z.file, e, key);
    const auto it = z.netpoint_index.find(name);
    if (it == z.netpoint_index.end())
      fail(z.file, e.line, "route " + key + " '" + name + "' is no host or router of zone '" + z.id + "'");
    return it->second;
  };
  sgxml::RouteDef r{endpoint("src"), endpoint("dst"), {}, e.line};
  for (const auto& child : e.children) {
    if (child.name != "link_ctn")
      fail(z.file, child.line, "<" + child.name + "> inside a <route> (only <link_ctn>)");
    r.hops.push_back(read_hop(z, child));
  }
  const std::string* sym = e.attribute("symmetrical");
  if (sym && *sym != "YES" && *sym != "NO") fail(z.file, e.line, "symmetrical must be YES or NO");
  z.add_route(std::move(r), !sym || *sym == "YES");
}

void read_zone(sgxml::Zone& z, const XmlElement& e) {
  expect_attributes(z.file, e, {"id", "routing"});
  z.id = required(z.file, e, "id");
  z.routing = required(z.file, e, "routing");
  z.line = e.line;
  if (z.routing != "Full" && z.routing != "Floyd" && z.routing != "None")
    fail(z.file, e.line,
         "zone '" + z.id + "': routing '" + z.routing + "' is not read (Full, Floyd and None are)");
  for (const auto& child : e.children) {
    if (child.name == "host") {
      z.add_host(sgxml::read_host(z.file, child));
    } else if (child.name == "router") {
      expect_attributes(z.file, child, {"id", "coordinates"});
      z.add_netpoint(required(z.file, child, "id"), child.line);
    } else if (child.name == "link") {
      z.add_link(read_link(z.file, child));
    } else if (child.name == "route") {
      read_route(z, child);
    } else if (child.name != "prop") {
      fail(z.file, child.line,
           "<" + child.name +
               "> inside a zone is not read by HeteroSim (one zone of hosts, "
               "routers, links and routes; no nested zones)");
    }
  }
}

Json link_json(const std::string& file, const sgxml::LinkDef& l) {
  return {{"name", l.id},
          {"bandwidth", l.bandwidth},
          {"latency", l.latency},
          {"sharing", l.sharing == Sharing::SplitDuplex ? "split-duplex" : "shared"},
          {"power", {{"idle", l.idle_watts}, {"busy", l.busy_watts}}},
          {"source", "SimGrid platform " + file + " line " + std::to_string(l.line)}};
}

Json routes_json(const sgxml::Zone& z, Json& unreachable) {
  const sgxml::HostRoutes routes = sgxml::host_routes(z);
  Json out = Json::array();
  for (std::size_t a = 0; a < z.hosts.size(); ++a)
    for (std::size_t b = 0; b < z.hosts.size(); ++b) {
      if (a == b) continue;
      const auto& r = routes[a][b];
      const std::string pair = "'" + z.hosts[a].id + "' to '" + z.hosts[b].id + "'";
      if (z.routing == "None") {
        if (a < b) unreachable.push_back({z.hosts[a].id, z.hosts[b].id});
        continue;
      }
      if (!r)
        fail(z.file, z.line,
             "zone '" + z.id + "' (" + z.routing + " routing) has no route from " + pair +
                 (z.routing == "Full" ? ": Full routing needs a <route> for each pair of hosts" : ""));
      if (r->empty())
        fail(z.file, z.line, "the route from " + pair + " crosses no link (HeteroSim needs one)");
      Json hops = Json::array();
      for (const sgxml::Hop& h : *r) {
        const auto& link = z.links[static_cast<std::size_t>(h.link)];
        if (link.sharing == Sharing::SplitDuplex && !h.forward)
          hops.push_back({{"link", link.id}, {"reverse", true}});
        else
          hops.push_back(link.id);
      }
      out.push_back(
          {{"from", z.hosts[a].id}, {"to", z.hosts[b].id}, {"links", hops}, {"symmetrical", false}});
    }
  return out;
}

} // namespace

Json simgrid_xml_platform(const std::string& path) {
  const XmlElement root = read_xml_file(path);
  if (root.name != "platform")
    fail(path, root.line, "a SimGrid platform file starts with <platform>, not <" + root.name + ">");
  expect_attributes(path, root, {"version"});
  if (const std::string* v = root.attribute("version"); !v || *v != "4.1")
    fail(path, root.line,
         "platform version '" + (v ? *v : std::string()) +
             "' is not 4.1, the version SimGrid "
             "3.32 reads (simgrid_update_xml converts older files)");
  sgxml::Zone z;
  z.file = path;
  for (const auto& child : root.children) {
    if (!z.id.empty())
      fail(path, child.line,
           "a second <" + child.name + "> in <platform> (HeteroSim reads one zone or cluster)");
    if (child.name == "zone") {
      read_zone(z, child);
    } else if (child.name == "cluster") {
      z.id = required(path, child, "id");
      z.routing = "Full";
      z.line = child.line;
      sgxml::read_cluster(child, z);
    } else {
      fail(path, child.line,
           "<" + child.name + "> in <platform> is not read by HeteroSim (one <zone> or <cluster>)");
    }
  }
  if (z.hosts.empty()) fail(path, root.line, "the platform has no host");
  Json unreachable = Json::array();
  Json doc{{"format", "heterosim-platform"},
           {"version", 1},
           {"name", std::filesystem::path(path).stem().string()},
           {"description", "SimGrid platform " + path + " (zone '" + z.id + "', " + z.routing + " routing)"},
           {"devices", Json::array()},
           {"links", Json::array()}};
  for (const auto& h : z.hosts)
    doc["devices"].push_back(device(path, h));
  for (const auto& l : z.links)
    doc["links"].push_back(link_json(path, l));
  doc["routes"] = routes_json(z, unreachable);
  if (!unreachable.empty()) doc["unreachable"] = unreachable;
  return doc;
}

} // namespace hs
