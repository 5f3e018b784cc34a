#include "sim/simgrid_xml_zone.hpp"

#include "sim/error.hpp"
#include "sim/simgrid_units.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace hs::sgxml {

void fail(const std::string& file, int line, const std::string& what) {
  throw InputError(file, "line " + std::to_string(line), what);
}

const std::string& required(const std::string& file, const XmlElement& e, const std::string& key) {
  if (const std::string* v = e.attribute(key)) return *v;
  fail(file, e.line, "<" + e.name + "> needs the attribute '" + key + "'");
}

void expect_attributes(const std::string& file, const XmlElement& e, const std::vector<std::string>& known) {
  for (const auto& [key, value] : e.attributes)
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(
          file,
          e.line, "attribute '" + key + "' of <" + e.name + "> is not read by HeteroSim (it reads: " + [&] {
            std::string s;
            for (const auto& k : known)
              s.append(s.empty() ? "" : ", ").append(k);
            return s;
          }() + "; platforms/README.md, \"SimGrid platforms\")");
}

double quantity(const std::string& file, const XmlElement& e, const std::string& key,
                double (*parse)(const std::string&)) {
  try {
    return parse(required(file, e, key));
  } catch (const std::invalid_argument& bad) {
    fail(file, e.line, "<" + e.name + "> " + key + ": " + bad.what());
  }
}

int Zone::add_netpoint(const std::string& name, int at) {
  if (name.empty()) fail(file, at, "a host or router needs a non-empty id");
  if (!netpoint_index.emplace(name, static_cast<int>(netpoints.size())).second)
    fail(file, at, "'" + name + "' names a second host or router (ids are unique)");
  netpoints.push_back(name);
  return static_cast<int>(netpoints.size()) - 1;
}

void Zone::add_host(HostDef h) {
  host_netpoint.push_back(add_netpoint(h.id, h.line));
  hosts.push_back(std::move(h));
}

void Zone::add_link(LinkDef l) {
  if (l.id.empty()) fail(file, l.line, "a link needs a non-empty id");
  if (!(l.bandwidth > 0)) fail(file, l.line, "link '" + l.id + "': bandwidth must be positive");
  if (!link_index.emplace(l.id, static_cast<int>(links.size())).second)
    fail(file, l.line, "link id '" + l.id + "' is used twice");
  links.push_back(std::move(l));
}

void Zone::add_route(RouteDef r, bool symmetrical) {
  const auto exists = [&](int a, int b) {
    return std::any_of(routes.begin(), routes.end(),
                       [&](const RouteDef& x) { return x.src == a && x.dst == b; });
  };
  const auto pair_name = [&](int a, int b) { return "'" + netpoints[a] + "' to '" + netpoints[b] + "'"; };
  if (exists(r.src, r.dst))
    fail(file, r.line,
         "a second route from " + pair_name(r.src, r.dst) +
             " (routes are symmetrical unless "
             "symmetrical=\"NO\")");
  if (symmetrical) {
    if (exists(r.dst, r.src))
      fail(file, r.line,
           "the route from " + pair_name(r.dst, r.src) +
               " is already written; this symmetrical "
               "route would write it again (add symmetrical=\"NO\")");
    RouteDef back{r.dst, r.src, {}, r.line};
    for (auto it = r.hops.rbegin(); it != r.hops.rend(); ++it)
      back.hops.push_back({it->link, links[static_cast<std::size_t>(it->link)].sharing == Sharing::SplitDuplex
                                         ? !it->forward
                                         : it->forward});
    routes.push_back(std::move(r));
    routes.push_back(std::move(back));
  } else {
    routes.push_back(std::move(r));
  }
}

HostDef read_host(const std::string& file, const XmlElement& e) {
  expect_attributes(file, e, {"id", "speed", "core", "pstate"});
  HostDef h;
  h.id = required(file, e, "id");
  h.line = e.line;
  h.speeds = [&] {
    try {
      return simgrid_units::speeds(required(file, e, "speed"));
    } catch (const std::invalid_argument& bad) {
      fail(file, e.line, "host '" + h.id + "' speed: " + bad.what());
    }
  }();
  for (double s : h.speeds)
    if (!(s > 0)) fail(file, e.line, "host '" + h.id + "': every speed must be positive");
  if (const std::string* core = e.attribute("core")) {
    try {
      std::size_t used = 0;
      h.cores = std::stoi(*core, &used);
      if (used != core->size() || h.cores < 1) throw std::invalid_argument("");
    } catch (const std::exception&) {
      fail(file, e.line, "host '" + h.id + "': core must be a positive integer (got '" + *core + "')");
    }
  }
  if (const std::string* ps = e.attribute("pstate"); ps && *ps != "0")
    fail(file, e.line,
         "host '" + h.id +
             "': only the initial p-state 0 is read (HeteroSim's policies choose "
             "p-states)");
  for (const auto& child : e.children) {
    if (child.name != "prop")
      fail(file, child.line, "<" + child.name + "> inside a <host> is not read by HeteroSim (only <prop>)");
    expect_attributes(file, child, {"id", "value"});
    h.props[required(file, child, "id")] = required(file, child, "value");
  }
  return h;
}

namespace {

// SimGrid's FloydZone: cost = number of links of a written route; relaxed for c, a, b in netpoint order with
// a strict comparison, so the first shortest path found is kept.
HostRoutes floyd_routes(const Zone& z) {
  const std::size_t n = z.netpoints.size();
  std::vector<std::vector<unsigned long>> cost(n, std::vector<unsigned long>(n, ULONG_MAX));
  std::vector<std::vector<long>> pred(n, std::vector<long>(n, -1));
  std::vector<std::vector<const RouteDef*>> direct(n, std::vector<const RouteDef*>(n, nullptr));
  for (const RouteDef& r : z.routes) {
    const auto a = static_cast<std::size_t>(r.src), b = static_cast<std::size_t>(r.dst);
    direct[a][b] = &r;
    cost[a][b] = r.hops.size();
    pred[a][b] = r.src;
  }
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (cost[a][c] < ULONG_MAX && cost[c][b] < ULONG_MAX &&
            (cost[a][b] == ULONG_MAX || cost[a][c] + cost[c][b] < cost[a][b])) {
          cost[a][b] = cost[a][c] + cost[c][b];
          pred[a][b] = pred[c][b];
        }
  HostRoutes out(z.hosts.size(), std::vector<std::optional<std::vector<Hop>>>(z.hosts.size()));
  for (std::size_t i = 0; i < z.hosts.size(); ++i)
    for (std::size_t j = 0; j < z.hosts.size(); ++j) {
      const auto src = static_cast<std::size_t>(z.host_netpoint[i]),
                 dst = static_cast<std::size_t>(z.host_netpoint[j]);
      if (i == j || pred[src][dst] < 0) continue;
      std::vector<const RouteDef*> stack; // from the destination back
      for (std::size_t cur = dst; cur != src;) {
        const auto p = static_cast<std::size_t>(pred[src][cur]);
        stack.push_back(direct[p][cur]);
        cur = p;
      }
      std::vector<Hop> hops;
      for (auto it = stack.rbegin(); it != stack.rend(); ++it)
        hops.insert(hops.end(), (*it)->hops.begin(), (*it)->hops.end());
      out[i][j] = std::move(hops);
    }
  return out;
}

} // namespace

HostRoutes host_routes(const Zone& z) {
  if (z.routing == "Floyd") return floyd_routes(z);
  HostRoutes out(z.hosts.size(), std::vector<std::optional<std::vector<Hop>>>(z.hosts.size()));
  if (z.routing == "None") return out;
  std::vector<int> host_of(z.netpoints.size(), -1);
  for (std::size_t h = 0; h < z.hosts.size(); ++h)
    host_of[static_cast<std::size_t>(z.host_netpoint[h])] = static_cast<int>(h);
  for (const RouteDef& r : z.routes) {
    const int a = host_of[static_cast<std::size_t>(r.src)], b = host_of[static_cast<std::size_t>(r.dst)];
    if (a >= 0 && b >= 0 && a != b) out[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = r.hops;
  }
  return out;
}

} // namespace hs::sgxml
