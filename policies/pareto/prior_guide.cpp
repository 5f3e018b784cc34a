#include "policies/pareto/prior_guide.hpp"

#include "policies/pareto/mover.hpp"

#include <algorithm>
#include <cmath>

namespace hs::pareto {
namespace {

// The index whose cumulative weight first exceeds a uniform draw over the total.
std::size_t draw_weighted(const std::vector<double>& w, Rng& rng) {
  double total = 0;
  for (double x : w)
    total += x;
  double u = rng.uniform() * total;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (u < w[i]) return i;
    u -= w[i];
  }
  return w.size() - 1;
}

} // namespace

PriorGuide::PriorGuide(const Encoding& enc, const OpDeviceProbabilities& p, std::uint64_t seed,
                       PriorGuideOptions o)
    : enc_(enc), options_(o), seed_rng_(seed ^ 0x9121A5EEDULL) {
  const auto& nodes = enc.coarse().nodes;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    std::vector<double> q(nodes[s].devices.size(), 0.0);
    double sum = 0;
    for (std::size_t k = 0; k < q.size(); ++k) {
      for (OpId op : nodes[s].ops)
        q[k] += p[static_cast<std::size_t>(op)][static_cast<std::size_t>(nodes[s].devices[k])];
      sum += q[k];
    }
    for (double& v : q) // a super-node whose ops the prior gives no allowed device: uniform
      v = sum > 0 ? v / sum : 1.0 / static_cast<double>(q.size());
    q_.push_back(std::move(q));
    if (enc.upper()[s] > 0) movable_.push_back(s);
  }
  prior_ = q_;
  kin_ = find_kin(enc);
  std::vector<char> seen(nodes.size(), 0);
  for (OpId op : enc.base().graph().topological_order()) {
    const auto s = static_cast<std::size_t>(enc.coarse().node_of[static_cast<std::size_t>(op)]);
    if (!seen[s] && enc.upper()[s] > 0) topo_movable_.push_back(s);
    seen[s] = 1;
  }
}

int PriorGuide::draw(const Distribution& dist, std::size_t node, int except, Rng& rng) const {
  const auto& q = dist[node];
  std::vector<double> w(q.size());
  for (std::size_t k = 0; k < q.size(); ++k)
    w[k] = static_cast<int>(k) == except
               ? 0.0
               : (1 - options_.floor) * q[k] + options_.floor / static_cast<double>(q.size());
  return static_cast<int>(draw_weighted(w, rng));
}

std::vector<Genome> PriorGuide::seeds() {
  Genome mode(enc_.size(), 0);
  for (std::size_t s = 0; s < q_.size(); ++s)
    mode[s] = static_cast<int>(std::max_element(q_[s].begin(), q_[s].end()) - q_[s].begin());
  std::vector<Genome> out = {mode};
  if (!enc_.candidates().fusions.empty()) {
    Genome fused = mode;
    for (std::size_t f = 0; f < enc_.candidates().fusions.size(); ++f)
      fused[enc_.fusion_gene(f)] = 1;
    out.push_back(std::move(fused));
  }
  for (int i = 0; i < options_.samples; ++i) {
    Genome g = out.back();
    for (std::size_t s : movable_)
      g[s] = draw(q_, s, -1, seed_rng_);
    out.push_back(std::move(g));
  }
  return out;
}

Genome PriorGuide::propose_from(const Distribution& q, const Genome& parent, Rng& rng) const {
  Genome child = parent;
  if (movable_.empty()) return child;
  const double kind = rng.uniform();
  if (kind < 0.15) { // a fresh proposal from the distribution
    for (std::size_t s : movable_)
      child[s] = draw(q, s, -1, rng);
    return child;
  }
  // Kin first, in proportion to how much of the graph has kin: a transformer's layers and decode steps
  // are best moved a periodic subset at a time.
  if (!kin_.classes.empty() && rng.uniform() < kin_.coverage) {
    // A periodic subset of a class of kin to the device the distribution draws for one of them.
    const auto& members = kin_.classes[static_cast<std::size_t>(
        rng.integer(0, static_cast<std::int64_t>(kin_.classes.size()) - 1))];
    const std::size_t s0 =
        members[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(members.size()) - 1))];
    const int target = draw(q, s0, -1, rng);
    for (std::size_t s : kin_subset(members, rng))
      child[s] = target;
    return child;
  }
  if (kind < 0.5) { // a run of log-uniform length up to half the graph, redrawn
    const std::size_t n = topo_movable_.size();
    const auto len = static_cast<std::size_t>(
        std::max(1.0, std::floor(rng.log_uniform(1.0, std::max(1.0, static_cast<double>(n) / 2) + 1))));
    const auto start = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(n) - 1));
    for (std::size_t k = start; k < std::min(n, start + len); ++k)
      child[topo_movable_[k]] = draw(q, topo_movable_[k], -1, rng);
    return child;
  }
  // One to three super-nodes, picked in proportion to how much the distribution would move them.
  std::vector<double> disagreement(movable_.size());
  for (std::size_t i = 0; i < movable_.size(); ++i)
    disagreement[i] = 1.0 - q[movable_[i]][static_cast<std::size_t>(parent[movable_[i]])] + options_.floor;
  const int moves = move_count(rng);
  for (int m = 0; m < moves; ++m) {
    const std::size_t s = movable_[draw_weighted(disagreement, rng)];
    child[s] = draw(q, s, child[s], rng);
  }
  return child;
}

Genome PriorGuide::propose_corner(const Genome& parent, std::size_t k, Rng& rng) {
  return propose_from(corner(k), parent, rng);
}

PriorGuide::Distribution& PriorGuide::corner(std::size_t k) {
  while (corners_.size() <= k)
    corners_.push_back(prior_);
  return corners_[k];
}

void PriorGuide::pull(Distribution& q, const Genome& child, double a) {
  for (std::size_t s = 0; s < q.size(); ++s)
    for (std::size_t k = 0; k < q[s].size(); ++k)
      q[s][k] = (1 - a) * q[s][k] + (static_cast<int>(k) == child[s] ? a : 0.0);
}

} // namespace hs::pareto
