#include "sim/topology.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

namespace hs {
// Named, not anonymous: TopologyRoutes::Impl holds these.
namespace topology_detail {

// One direction of a link, as an arc of the routing graph.
struct Arc {
  LinkId link = 0;
  bool forward = true;
  std::size_t tail = 0; // the vertex it leaves
  std::int64_t latency_ps = 0;
  int name_rank = 0; // the link's place in the byte order of link names
};

using RoutingGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, Arc>;
using ArcId = RoutingGraph::edge_descriptor;

constexpr std::int64_t kNoPath = std::numeric_limits<std::int64_t>::max();

// A path's cost under the rule: latency, then hops (the length of name_ranks), then link names. Extending
// two equal-length paths by the same arc keeps their order, which is what Dijkstra's algorithm needs.
struct PathCost {
  std::int64_t latency_ps = 0; // kNoPath: not reached
  std::vector<int> name_ranks;
};

struct CheaperPath {
  bool operator()(const PathCost& a, const PathCost& b) const {
    if (a.latency_ps != b.latency_ps) return a.latency_ps < b.latency_ps;
    if (a.name_ranks.size() != b.name_ranks.size()) return a.name_ranks.size() < b.name_ranks.size();
    return a.name_ranks < b.name_ranks;
  }
};

struct ExtendPath {
  PathCost operator()(PathCost c, const Arc& a) const {
    if (c.latency_ps == kNoPath) return c;
    // Saturates one below "not reached", so an absurdly slow path still counts as a path.
    c.latency_ps = c.latency_ps >= kNoPath - 1 - a.latency_ps ? kNoPath - 1 : c.latency_ps + a.latency_ps;
    c.name_ranks.push_back(a.name_rank);
    return c;
  }
};

// Arcs a path from `source` may take: none leaves a device other than the source, unless the device is a
// transit device, so routes end at devices instead of passing through them.
struct MayLeave {
  const RoutingGraph* graph = nullptr;
  const std::vector<bool>* relays = nullptr; // per vertex
  std::size_t source = 0;
  bool operator()(const ArcId& e) const {
    const std::size_t tail = (*graph)[e].tail;
    return tail == source || (*relays)[tail];
  }
};

std::int64_t whole_picoseconds(double seconds) {
  // A million seconds caps the figure well inside 64 bits; no real hop comes near it.
  if (!(seconds > 0)) return 0;
  return std::llround(std::min(seconds, 1e6) * 1e12);
}

struct Routing {
  RoutingGraph graph;
  std::vector<bool> relays;
};

// Fills `r` in place: boost's adjacency_list has no move, and its copy trips GCC 12's -Wmaybe-uninitialized.
void build_routing(const Platform& p, Routing& r) {
  std::map<std::string, std::size_t> vertex;
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    vertex[p.devices[d].name] = d;
  for (std::size_t k = 0; k < p.nodes.size(); ++k)
    vertex[p.nodes[k].name] = p.devices.size() + k;
  for (std::size_t v = 0; v < vertex.size(); ++v)
    boost::add_vertex(r.graph);
  r.relays.assign(vertex.size(), true);
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    r.relays[d] = std::count(p.transit_devices.begin(), p.transit_devices.end(), p.devices[d].name) > 0;
  std::vector<std::size_t> by_name(p.links.size());
  for (std::size_t l = 0; l < by_name.size(); ++l)
    by_name[l] = l;
  std::sort(by_name.begin(), by_name.end(),
            [&p](std::size_t a, std::size_t b) { return p.links[a].name < p.links[b].name; });
  std::vector<int> rank(p.links.size());
  for (std::size_t i = 0; i < by_name.size(); ++i)
    rank[by_name[i]] = static_cast<int>(i);
  for (std::size_t l = 0; l < p.links.size(); ++l) {
    const Link& link = p.links[l];
    if (link.ends.size() != 2) continue;
    const std::size_t a = vertex.at(link.ends[0]), b = vertex.at(link.ends[1]);
    const auto id = static_cast<LinkId>(l);
    const std::int64_t ps = whole_picoseconds(link.latency);
    boost::add_edge(a, b, Arc{id, true, a, ps, rank[l]}, r.graph);
    boost::add_edge(b, a, Arc{id, false, b, ps, rank[l]}, r.graph);
  }
}

// The best path from `source` to every vertex, as the arc that reaches each one on it.
std::vector<std::optional<ArcId>> best_paths_from(const Routing& r, std::size_t source) {
  const boost::filtered_graph<RoutingGraph, MayLeave> g(r.graph, MayLeave{&r.graph, &r.relays, source});
  const std::size_t n = boost::num_vertices(r.graph);
  std::vector<PathCost> cost(n);
  std::vector<ArcId> reached_by(n);
  const auto index = boost::get(boost::vertex_index, r.graph);
  boost::dijkstra_shortest_paths(
      g, source,
      boost::weight_map(boost::get(boost::edge_bundle, r.graph))
          .distance_map(boost::make_iterator_property_map(cost.begin(), index))
          .distance_compare(CheaperPath{})
          .distance_combine(ExtendPath{})
          .distance_inf(PathCost{kNoPath, {}})
          .distance_zero(PathCost{})
          .visitor(boost::make_dijkstra_visitor(boost::record_edge_predecessors(
              boost::make_iterator_property_map(reached_by.begin(), index), boost::on_edge_relaxed()))));
  std::vector<std::optional<ArcId>> out(n);
  for (std::size_t v = 0; v < n; ++v)
    if (v != source && cost[v].latency_ps != kNoPath) out[v] = reached_by[v];
  return out;
}

} // namespace topology_detail

using namespace topology_detail;

struct TopologyRoutes::Impl {
  Impl(const Platform& p) : devices(p.devices.size()) { build_routing(p, routing); }
  Routing routing;
  std::size_t devices = 0;
  // Per source, the arc that reaches each vertex on its best path (nullptr: not reached), kept once found:
  // a cluster's transfers leave from a few neighbours of each device, so a row serves many routes.
  mutable std::map<std::size_t, std::vector<const Arc*>> rows;

  const std::vector<const Arc*>& row(std::size_t source) const {
    auto it = rows.find(source);
    if (it != rows.end()) return it->second;
    const auto arcs = best_paths_from(routing, source);
    std::vector<const Arc*> reached(arcs.size(), nullptr);
    for (std::size_t v = 0; v < arcs.size(); ++v)
      if (arcs[v]) reached[v] = &routing.graph[*arcs[v]];
    return rows.emplace(source, std::move(reached)).first->second;
  }
};

TopologyRoutes::TopologyRoutes(const Platform& p) : impl_(std::make_unique<Impl>(p)) {}

TopologyRoutes::~TopologyRoutes() = default;

std::optional<Route> TopologyRoutes::route(DeviceId from, DeviceId to) const {
  if (from == to) return std::nullopt;
  // From the device listed first, and reversed for the other direction, so routes are symmetrical.
  const auto a = static_cast<std::size_t>(std::min(from, to)),
             b = static_cast<std::size_t>(std::max(from, to));
  const auto& reached = impl_->row(a);
  if (!reached[b]) return std::nullopt;
  Route route;
  route.computed = true;
  for (std::size_t v = b; v != a;) {
    const Arc& arc = *reached[v];
    route.hops.push_back({arc.link, arc.forward});
    v = arc.tail;
  }
  std::reverse(route.hops.begin(), route.hops.end());
  return from < to ? route : route.reversed();
}

std::vector<bool> TopologyRoutes::joined(DeviceId from) const {
  // Breadth first under best_paths_from's rule (no arc leaves a device but the source or a relay), which
  // reaches the same vertices without weighing paths.
  const RoutingGraph& g = impl_->routing.graph;
  const auto source = static_cast<std::size_t>(from);
  std::vector<bool> seen(boost::num_vertices(g), false);
  std::vector<std::size_t> queue{source};
  seen[source] = true;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const std::size_t v = queue[i];
    if (v != source && !impl_->routing.relays[v]) continue;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
      if (const std::size_t w = boost::target(*e, g); !seen[w]) {
        seen[w] = true;
        queue.push_back(w);
      }
  }
  seen.resize(impl_->devices);
  seen[source] = false;
  return seen;
}

std::optional<WalkError> check_walk(const Platform& p, DeviceId from, DeviceId to, const Route& r) {
  std::string at = p.devices[static_cast<std::size_t>(from)].name;
  for (std::size_t i = 0; i < r.hops.size(); ++i) {
    const RouteHop& hop = r.hops[i];
    const Link& l = p.links[static_cast<std::size_t>(hop.link)];
    const std::string& start = hop.forward ? l.ends[0] : l.ends[1];
    const std::string& end = hop.forward ? l.ends[1] : l.ends[0];
    if (start != at)
      return WalkError{i, "link '" + l.name + "' crossed " + (hop.forward ? "forward" : "in reverse") +
                              " leaves '" + start + "', but the route is at '" + at + "'" +
                              (end == at ? " (cross it the other way)" : "")};
    at = end;
  }
  const std::string& target = p.devices[static_cast<std::size_t>(to)].name;
  if (at != target)
    return WalkError{r.hops.size(), "the route ends at '" + at + "', not at '" + target + "'"};
  return std::nullopt;
}

} // namespace hs
