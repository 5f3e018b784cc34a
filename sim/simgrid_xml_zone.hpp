#pragma once
// What the SimGrid platform reader (sim/simgrid_xml_platform.hpp) keeps of one zone while it reads it: the
// netpoints (hosts and routers, numbered in file order as SimGrid numbers them), links, and written routes.
// Shared by the reader, the cluster expansion and the routing (Full, Floyd); not a public interface.
#include "sim/platform.hpp"
#include "sim/xml_tree.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::sgxml {

// Throws InputError(file, "line N", what).
[[noreturn]] void fail(const std::string& file, int line, const std::string& what);
// The attribute, or fails naming the element when it is missing.
const std::string& required(const std::string& file, const XmlElement& e, const std::string& key);
// Fails on an attribute outside `known` (SimGrid attributes HeteroSim does not read included).
void expect_attributes(const std::string& file, const XmlElement& e, const std::vector<std::string>& known);

struct HostDef {
  std::string id;
  int line = 0;
  std::vector<double> speeds; // flop/s per core, per p-state
  int cores = 1;
  std::map<std::string, std::string> props;
};

struct LinkDef {
  std::string id;
  int line = 0;
  double bandwidth = 0.0; // bytes/s (per direction when split-duplex)
  double latency = 0.0;
  Sharing sharing = Sharing::Shared;
  double idle_watts = 0.0, busy_watts = 0.0;
};

struct Hop {
  int link;
  bool forward; // UP (or a link that is not split-duplex); false: DOWN
};

struct RouteDef {
  int src, dst; // netpoints
  std::vector<Hop> hops;
  int line = 0;
};

struct Zone {
  std::string file;
  std::string id;
  std::string routing; // Full, Floyd or None
  int line = 0;
  std::vector<std::string> netpoints; // hosts and routers, in file order
  std::map<std::string, int> netpoint_index;
  std::vector<HostDef> hosts;
  std::vector<int> host_netpoint; // per host
  std::vector<LinkDef> links;
  std::map<std::string, int> link_index;
  std::vector<RouteDef> routes; // written ones, each direction on its own (a symmetrical one twice)

  int add_netpoint(const std::string& id, int line);
  void add_host(HostDef h);
  void add_link(LinkDef l);
  // Refuses a second route for the same ordered pair, as SimGrid does.
  void add_route(RouteDef r, bool symmetrical);
};

// The hops from host a to host b (distinct), for every ordered pair; nullopt where the zone has no route.
// Full: the written route. Floyd: SimGrid's FloydZone (fewest links over written routes between any
// netpoints, ties to the first found in netpoint order). None: no route.
using HostRoutes = std::vector<std::vector<std::optional<std::vector<Hop>>>>;
HostRoutes host_routes(const Zone& z);

// Reads a flat <cluster> (SimGrid's default topology) into `z`: its hosts, a private link per host
// (<id>_link_<radical>), the optional backbone (<id>_backbone) and limiters, and a route for every pair.
void read_cluster(const XmlElement& e, Zone& z);

// Reads a <host>'s speeds, cores and properties.
HostDef read_host(const std::string& file, const XmlElement& e);
// Parses a quantity with one of sim/simgrid_units.hpp's functions, failing with the file and line.
double quantity(const std::string& file, const XmlElement& e, const std::string& key,
                double (*parse)(const std::string&));

} // namespace hs::sgxml
