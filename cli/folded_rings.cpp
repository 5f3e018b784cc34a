#include "cli/folded_rings.hpp"

#include "sim/error.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace hs::cli {
namespace {

using Hop = std::pair<DeviceId, DeviceId>;

// The hops of the data-parallel rings over `replicas` replicas of `inner` devices each (`gpus` lists the
// run's devices, replica by replica): per step device, the ring over its copies, or with a hierarchical
// all-reduce the rings across groups (one rail each); the rings inside a group are built whole.
std::vector<Hop> ring_hops(const std::vector<DeviceId>& gpus, int replicas, int inner, int group) {
  std::vector<Hop> hops;
  const int rings = std::max(group, 1); // rank i of every group, one ring per i
  for (int j = 0; j < inner; ++j)
    for (int i = 0; i < rings; ++i) {
      std::vector<DeviceId> ring;
      for (int r = i; r < replicas; r += rings)
        ring.push_back(gpus[static_cast<std::size_t>(r * inner + j)]);
      for (std::size_t k = 0; k < ring.size(); ++k)
        hops.emplace_back(ring[k], ring[(k + 1) % ring.size()]);
    }
  return hops;
}

struct HopKind {
  std::size_t links;
  double latency, bandwidth;
  bool operator<(const HopKind& o) const {
    return std::tie(links, latency, bandwidth) < std::tie(o.links, o.latency, o.bandwidth);
  }
};

// How many hops cross the most shared link direction.
int most_shared(const Platform& p, const std::vector<Hop>& hops) {
  std::map<std::pair<LinkId, bool>, int> load;
  int most = 0;
  for (const auto& [from, to] : hops)
    for (const RouteHop& h : p.route(from, to)->hops)
      most = std::max(most, ++load[{h.link, h.forward}]);
  return most;
}

std::string hop_name(const Platform& p, const Hop& h) {
  const Route& r = *p.route(h.first, h.second);
  return p.devices[static_cast<std::size_t>(h.first)].name + " -> " +
         p.devices[static_cast<std::size_t>(h.second)].name + " (" + std::to_string(r.hops.size()) +
         " links, " + units::format_bytes(r.bandwidth) + "/s)";
}

} // namespace

void check_folded_rings(const ParallelSetup& s, const Platform& platform) {
  const int whole = s.data_parallel, built = s.replicas(), inner = s.inner();
  std::vector<DeviceId> gpus;
  for (DeviceId d = 0; d < static_cast<DeviceId>(platform.devices.size()); ++d)
    if (platform.devices[static_cast<std::size_t>(d)].kind == "gpu") gpus.push_back(d);
  const auto needed = static_cast<std::size_t>(whole) * static_cast<std::size_t>(inner);
  if (gpus.size() < needed)
    throw InputError("--parallel", "replicas",
                     "the fold is checked against the whole run's rings: platform '" + platform.name +
                         "' needs " + std::to_string(needed) + " GPUs for dp=" + std::to_string(whole) +
                         " (it has " + std::to_string(gpus.size()) + ")");
  const int group = s.dp.algorithm == collectives::Algorithm::Hierarchical ? s.dp.group_size : 0;
  const auto all = ring_hops(gpus, whole, inner, group), folded = ring_hops(gpus, built, inner, group);
  std::map<HopKind, Hop> kinds;
  for (const auto* hops : {&all, &folded})
    for (const Hop& h : *hops) {
      const Route* r = platform.route(h.first, h.second);
      if (!r)
        throw InputError("--parallel", "replicas",
                         "no route for the ring's hop " +
                             platform.devices[static_cast<std::size_t>(h.first)].name);
      kinds.emplace(HopKind{r->hops.size(), r->latency, r->bandwidth}, h);
    }
  if (kinds.size() > 1)
    throw InputError("--parallel", "replicas",
                     "a folded ring stands for the whole ring only where its hops are alike, and dp=" +
                         std::to_string(whole) + "'s rings on '" + platform.name + "' have " +
                         std::to_string(kinds.size()) + " kinds, such as " +
                         hop_name(platform, kinds.begin()->second) + " and " +
                         hop_name(platform, kinds.rbegin()->second) +
                         (group > 0 ? "" : ": try algo=hierarchical,group=G (G ranks per node)"));
  const int shared_whole = most_shared(platform, all), shared_folded = most_shared(platform, folded);
  if (shared_whole != shared_folded)
    throw InputError("--parallel", "replicas",
                     "the whole run's rings share links as the folded ones do not (" +
                         std::to_string(shared_whole) + " hops on one link against " +
                         std::to_string(shared_folded) + ")");
}

} // namespace hs::cli
