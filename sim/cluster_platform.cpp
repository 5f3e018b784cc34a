#include "sim/cluster_platform.hpp"

#include "sim/error.hpp"
#include "sim/platform.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <charconv>

namespace hs {

namespace {

std::string node_prefix(int k) {
  std::string p = "n";
  return p.append(std::to_string(k)).append("."); // append: GCC 12's -Wrestrict misfires on +
}

std::string renamed(int k, const std::string& name) {
  return node_prefix(k).append(name);
}

int node_count(const JsonNode& root, const std::map<std::string, std::string>& overrides,
               const std::string& file) {
  int nodes = static_cast<int>(root.at("nodes").as_integer(1, 4096));
  for (const auto& [key, v] : overrides) {
    if (key != "nodes") throw InputError(file, key, "unknown parameter (a cluster takes: nodes)");
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), nodes);
    if (ec != std::errc() || ptr != v.data() + v.size() || nodes < 1 || nodes > 4096)
      throw InputError(file, key, "'" + v + "' is not a node count between 1 and 4096");
  }
  return nodes;
}

// The node's devices, switches and links, once per node, renamed.
void add_nodes(Json& out, const Json& node, int nodes) {
  for (int k = 0; k < nodes; ++k) {
    for (Json d : node.at("devices")) {
      d["name"] = renamed(k, d.at("name").get<std::string>());
      out["devices"].push_back(std::move(d));
    }
    for (Json n : node.contains("nodes") ? node.at("nodes") : Json::array()) {
      n["name"] = renamed(k, n.at("name").get<std::string>());
      out["nodes"].push_back(std::move(n));
    }
    for (const Json& t : node.contains("transit_devices") ? node.at("transit_devices") : Json::array())
      out["transit_devices"].push_back(renamed(k, t.get<std::string>()));
    for (Json l : node.contains("links") ? node.at("links") : Json::array()) {
      l["name"] = renamed(k, l.at("name").get<std::string>());
      for (auto& end : l.at("ends"))
        end = renamed(k, end.get<std::string>());
      out["links"].push_back(std::move(l));
    }
  }
}

Json network_link(const std::string& name, const std::string& from, const std::string& to,
                  const JsonNode& nic) {
  Json link = {{"name", name},
               {"ends", {from, to}},
               {"bandwidth", nic.raw().at("bandwidth")},
               {"latency", nic.raw().value("latency", "0s")},
               {"source", nic.string_or("source", "")}};
  if (nic.raw().contains("power")) link["power"] = nic.raw().at("power");
  return link;
}

// A NIC per GPU to its rail's leaf, and each leaf's uplink to the spine.
void add_rails(Json& out, const Json& node, int nodes, const JsonNode& network) {
  const JsonNode nic = network.at("nic"), spine = network.at("spine"), host = network.at("host_nic");
  nic.expect_only({"bandwidth", "latency", "power", "source"});
  host.expect_only({"device", "bandwidth", "latency", "power", "source"});
  const std::string host_device = host.at("device").as_string();
  const auto& devices = node.at("devices");
  if (std::none_of(devices.begin(), devices.end(),
                   [&](const Json& d) { return d.value("name", "") == host_device; }))
    host.at("device").fail("no device '" + host_device + "' in the node platform");
  spine.expect_only({"latency", "source"});
  const double bandwidth = nic.at("bandwidth").as_quantity(units::Quantity::Bandwidth);
  if (!(bandwidth > 0)) nic.at("bandwidth").fail("must be positive");
  std::vector<std::string> gpus;
  for (const Json& d : node.at("devices"))
    if (d.value("kind", "") == "gpu") gpus.push_back(d.at("name").get<std::string>());
  if (gpus.empty()) network.fail("a rail-optimised network needs GPUs in the node platform, and it has none");
  out["nodes"].push_back({{"name", "spine"}, {"kind", "switch"}, {"source", spine.string_or("source", "")}});
  for (int k = 0; k < nodes; ++k) // the host's own NIC: what CPUs of different nodes talk through
    out["links"].push_back(network_link(renamed(k, "host_nic"), renamed(k, host_device), "spine", host));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string rail = "rail" + std::to_string(i);
    out["nodes"].push_back({{"name", rail}, {"kind", "switch"}, {"source", nic.string_or("source", "")}});
    for (int k = 0; k < nodes; ++k) {
      out["links"].push_back(network_link(renamed(k, "nic_" + gpus[i]), renamed(k, gpus[i]), rail, nic));
    }
    out["links"].push_back({{"name", rail + "_uplink"},
                            {"ends", {rail, "spine"}},
                            {"bandwidth", std::to_string(bandwidth * nodes) + "Bps"},
                            {"latency", spine.raw().value("latency", "0s")},
                            {"source", "non-blocking leaf uplink: nodes x the NIC bandwidth (" +
                                           spine.string_or("source", "") + ")"}});
  }
}

} // namespace

Json expand_cluster(const Json& j, const std::string& file,
                    const std::map<std::string, std::string>& overrides) {
  const JsonNode root(j, file, "");
  root.expect_only({"format", "version", "name", "description", "node", "nodes", "network", "calibration",
                    "sources", "notes"});
  root.expect_format("heterosim-cluster", true);
  const int nodes = node_count(root, overrides, file);
  const std::string node_file = platform_file(root.at("node").as_string());
  const Json node = read_json_file(node_file);
  if (node.value("format", "") != "heterosim-platform")
    root.at("node").fail("'" + node_file + "' is not a heterosim-platform file");
  if (node.contains("routes"))
    root.at("node").fail("the node platform writes its routes out; a cluster needs them computed from links");
  const JsonNode network = root.at("network");
  network.expect_only({"topology", "nic", "host_nic", "spine"});
  if (network.at("topology").as_string() != "rail-optimised")
    network.at("topology").fail("the only topology is \"rail-optimised\"");

  Json out = {{"format", "heterosim-platform"},
              {"version", 1},
              {"name", root.at("name").as_string()},
              {"description", root.string_or("description", "") + " (" + std::to_string(nodes) +
                                  " nodes of " + node.value("name", "") + ")"},
              {"sources", node.value("sources", Json::object())},
              {"notes", j.value("notes", Json::array())},
              {"devices", Json::array()},
              {"nodes", Json::array()},
              {"transit_devices", Json::array()},
              {"links", Json::array()}};
  if (j.contains("sources"))
    for (auto it = j.at("sources").begin(); it != j.at("sources").end(); ++it)
      out["sources"][it.key()] = it.value();
  // The node's own calibration costs its devices in the cluster too, unless the cluster names another.
  if (j.contains("calibration"))
    out["calibration"] = j.at("calibration");
  else if (node.contains("calibration") && node.at("calibration").is_string())
    out["calibration"] = platform_calibration_path(node.at("calibration").get<std::string>(), node_file);
  add_nodes(out, node, nodes);
  add_rails(out, node, nodes, network);
  return out;
}

} // namespace hs
