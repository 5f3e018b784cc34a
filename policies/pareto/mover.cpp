#include "policies/pareto/mover.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace hs::pareto {
namespace {

// Of the moves, the share of kin moves where every movable super-node has kin (less with less kin).
constexpr double kKinShare = 0.45;

std::vector<std::vector<int>> super_node_neighbours(const Encoding& enc) {
  const Graph& g = enc.base().graph();
  const auto& node_of = enc.coarse().node_of;
  std::vector<std::set<int>> adj(enc.coarse().nodes.size());
  for (const Tensor& t : g.tensors)
    for (OpId c : t.consumers) {
      const int a = node_of[static_cast<std::size_t>(t.producer)], b = node_of[static_cast<std::size_t>(c)];
      if (a == b) continue;
      adj[static_cast<std::size_t>(a)].insert(b);
      adj[static_cast<std::size_t>(b)].insert(a);
    }
  std::vector<std::vector<int>> out;
  for (const auto& s : adj)
    out.emplace_back(s.begin(), s.end());
  return out;
}

std::size_t pick(Rng& rng, std::size_t n) {
  return static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(n) - 1));
}

} // namespace

Mover::Mover(const Encoding& enc, KinClasses kin)
    : enc_(enc), kin_(std::move(kin)), neighbours_(super_node_neighbours(enc)) {
  for (std::size_t s = 0; s < enc.coarse().nodes.size(); ++s)
    if (enc.upper()[s] > 0) movable_.push_back(s);
  // Super-nodes in the order their first op appears topologically, for segment moves.
  const Graph& g = enc.base().graph();
  std::vector<char> seen(enc.coarse().nodes.size(), 0);
  for (OpId o : g.topological_order()) {
    const auto s = static_cast<std::size_t>(enc.coarse().node_of[static_cast<std::size_t>(o)]);
    if (!seen[s]) {
      seen[s] = 1;
      topo_nodes_.push_back(s);
    }
  }
}

void Mover::apply(Genome& g, Rng& rng) const {
  const std::size_t fusions = enc_.candidates().fusions.size(), splits = enc_.candidates().splits.size();
  // Without placement choices (one allowed device everywhere) only rewrite moves remain.
  const double r = movable_.empty() ? rng.uniform() * ((splits > 0 ? 0.25 : 0.15)) : rng.uniform();
  if (movable_.empty() && fusions == 0 && splits == 0) return;
  if (r < 0.05 && fusions > 0) {
    const int on = rng.uniform() < 0.8 ? 1 : 0; // all fusions at once: mostly a gain, so mostly on
    for (std::size_t f = 0; f < fusions; ++f)
      g[enc_.fusion_gene(f)] = on;
  } else if (r < 0.15 && fusions > 0) {
    const std::size_t f = enc_.fusion_gene(pick(rng, fusions));
    g[f] = 1 - g[f];
  } else if (r < 0.25 && splits > 0) {
    const std::size_t s = enc_.split_gene(pick(rng, splits));
    g[s] = static_cast<int>(rng.integer(0, enc_.upper()[s]));
  } else if (r < 0.40 && !movable_.empty()) {
    block_move(g, rng);
  } else if (r < 0.55 && !movable_.empty()) {
    segment_move(g, rng);
  } else if (r < 0.55 + kKinShare * kin_.coverage) {
    kin_move(g, rng);
  } else if (!movable_.empty()) {
    const std::size_t s = movable_[pick(rng, movable_.size())];
    const int other = static_cast<int>(rng.integer(0, enc_.upper()[s] - 1));
    g[s] = other >= g[s] ? other + 1 : other; // any index but the current one
  }
}

void Mover::block_move(Genome& g, Rng& rng) const {
  const std::size_t s = movable_[pick(rng, movable_.size())];
  const auto& nodes = enc_.coarse().nodes;
  const DeviceId target = nodes[s].devices[pick(rng, nodes[s].devices.size())];
  auto place = [&](std::size_t node) {
    const auto& devs = nodes[node].devices;
    const auto it = std::find(devs.begin(), devs.end(), target);
    if (it != devs.end()) g[node] = static_cast<int>(it - devs.begin());
  };
  place(s);
  for (int nb : neighbours_[s])
    place(static_cast<std::size_t>(nb));
}

// A run of super-nodes consecutive in topological order, of log-uniform length up to half the graph, to
// one device: pipeline-like cuts that single moves would need many steps to reach.
void Mover::segment_move(Genome& g, Rng& rng) const {
  const auto& nodes = enc_.coarse().nodes;
  const std::size_t n = topo_nodes_.size();
  const auto len = static_cast<std::size_t>(
      std::max(1.0, std::floor(rng.log_uniform(1.0, std::max(1.0, static_cast<double>(n) / 2) + 1))));
  const std::size_t start = pick(rng, n);
  const std::size_t s0 = movable_[pick(rng, movable_.size())];
  const DeviceId target = nodes[s0].devices[pick(rng, nodes[s0].devices.size())];
  for (std::size_t k = start; k < std::min(n, start + len); ++k) {
    const std::size_t node = topo_nodes_[k];
    const auto& devs = nodes[node].devices;
    const auto it = std::find(devs.begin(), devs.end(), target);
    if (it != devs.end()) g[node] = static_cast<int>(it - devs.begin());
  }
}

// A periodic subset of a kin class to one device: a move of many super-nodes alike at once.
void Mover::kin_move(Genome& g, Rng& rng) const {
  const auto& members = kin_.classes[pick(rng, kin_.classes.size())];
  const std::size_t s0 = members[pick(rng, members.size())];
  const int target = static_cast<int>(rng.integer(0, enc_.upper()[s0]));
  for (std::size_t s : kin_subset(members, rng))
    g[s] = target;
}

} // namespace hs::pareto
