// A flat <cluster>, as SimGrid 3.32 builds one (sg_platf_new_cluster_flat): host <prefix><radical><suffix>
// per radical, each with a private link <id>_link_<radical> (SPLITDUPLEX unless sharing_policy says
// otherwise), an optional limiter <id>_link_<radical>_limiter (SHARED), and an optional backbone
// <id>_backbone (bb_sharing_policy, SHARED by default). Host i to host j crosses i's limiter, i's link up,
// the backbone, j's link down and j's limiter. Loopback links only carry a host's traffic to itself, which
// HeteroSim never routes, so they are read and dropped.
#include "sim/simgrid_units.hpp"
#include "sim/simgrid_xml_zone.hpp"

#include <stdexcept>

namespace hs::sgxml {
namespace {

// "0-3,7,9-10" -> 0 1 2 3 7 9 10.
std::vector<long> radicals(const std::string& file, const XmlElement& e) {
  const std::string& text = required(file, e, "radical");
  std::vector<long> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-', 1);
    try {
      std::size_t used = 0;
      const long first = std::stol(item, &used);
      long last = first;
      if (dash != std::string::npos) {
        if (used != dash) throw std::invalid_argument("");
        last = std::stol(item.substr(dash + 1), &used);
        used += dash + 1;
      }
      if (used != item.size() || last < first || last - first > 100000) throw std::invalid_argument("");
      for (long r = first; r <= last; ++r)
        out.push_back(r);
    } catch (const std::exception&) {
      fail(file, e.line, "cluster radical '" + text + "': '" + item + "' is not a number or a range a-b");
    }
    start = comma + 1;
  }
  return out;
}

Sharing policy(const std::string& file, const XmlElement& e, const std::string& key,
               const std::string& fallback) {
  const std::string* given = e.attribute(key);
  const std::string value = given ? *given : fallback;
  if (value == "SPLITDUPLEX" || value == "FULLDUPLEX") return Sharing::SplitDuplex;
  if (value == "SHARED") return Sharing::Shared;
  fail(file, e.line,
       "cluster " + key + " '" + value +
           "' is not read (SPLITDUPLEX and SHARED are; FATPIPE has "
           "no HeteroSim equivalent: every link's bandwidth is shared by the transfers on it)");
}

} // namespace

void read_cluster(const XmlElement& e, Zone& z) {
  const std::string& file = z.file;
  expect_attributes(file, e,
                    {"id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat", "sharing_policy",
                     "topology", "bb_bw", "bb_lat", "bb_sharing_policy", "limiter_link", "loopback_bw",
                     "loopback_lat", "router_id"});
  const std::string id = required(file, e, "id");
  if (const std::string* t = e.attribute("topology"); t && *t != "FLAT")
    fail(file, e.line, "cluster topology '" + *t + "' is not read (only FLAT)");
  XmlElement host_element{"host", e.line, {{"id", "?"}, {"speed", required(file, e, "speed")}}, e.children};
  if (const std::string* core = e.attribute("core")) host_element.attributes.emplace_back("core", *core);
  const double bw = quantity(file, e, "bw", simgrid_units::bandwidth);
  const double lat = quantity(file, e, "lat", simgrid_units::time);
  const Sharing private_sharing = policy(file, e, "sharing_policy", "SPLITDUPLEX");
  int backbone = -1;
  if (e.attribute("bb_bw")) {
    z.add_link({id + "_backbone", e.line, quantity(file, e, "bb_bw", simgrid_units::bandwidth),
                e.attribute("bb_lat") ? quantity(file, e, "bb_lat", simgrid_units::time) : 0.0,
                policy(file, e, "bb_sharing_policy", "SHARED"), 0.0, 0.0});
    backbone = static_cast<int>(z.links.size()) - 1;
  }
  struct Member {
    int netpoint, link, limiter;
  };
  std::vector<Member> members;
  for (long r : radicals(file, e)) {
    host_element.attributes[0].second =
        required(file, e, "prefix") + std::to_string(r) + required(file, e, "suffix");
    z.add_host(read_host(file, host_element));
    Member m{z.host_netpoint.back(), 0, -1};
    if (e.attribute("limiter_link")) {
      z.add_link({id + "_link_" + std::to_string(r) + "_limiter", e.line,
                  quantity(file, e, "limiter_link", simgrid_units::bandwidth), 0.0, Sharing::Shared, 0.0,
                  0.0});
      m.limiter = static_cast<int>(z.links.size()) - 1;
    }
    z.add_link({id + "_link_" + std::to_string(r), e.line, bw, lat, private_sharing, 0.0, 0.0});
    m.link = static_cast<int>(z.links.size()) - 1;
    members.push_back(m);
  }
  for (const Member& a : members)
    for (const Member& b : members) {
      if (a.netpoint == b.netpoint) continue;
      RouteDef r{a.netpoint, b.netpoint, {}, e.line};
      if (a.limiter >= 0) r.hops.push_back({a.limiter, true});
      r.hops.push_back({a.link, true});
      if (backbone >= 0) r.hops.push_back({backbone, true});
      r.hops.push_back({b.link, false});
      if (b.limiter >= 0) r.hops.push_back({b.limiter, true});
      z.add_route(std::move(r), false);
    }
}

} // namespace hs::sgxml
