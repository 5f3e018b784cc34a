#include "policies/pareto/archive.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hs::pareto {

bool Archive::offer(Entry e) {
  if (!e.value.scores.feasible) return false;
  for (const auto& m : entries_)
    if (m.value.point == e.value.point || dominates(m.value.point, e.value.point)) return false;
  std::erase_if(entries_, [&](const Entry& m) { return dominates(e.value.point, m.value.point); });
  entries_.push_back(std::move(e));
  return true;
}

std::vector<std::vector<double>> Archive::points() const {
  std::vector<std::vector<double>> p;
  p.reserve(entries_.size());
  for (const auto& e : entries_)
    p.push_back(e.value.point);
  return p;
}

std::vector<double> crowding_distance(const std::vector<std::vector<double>>& points) {
  const std::size_t n = points.size();
  std::vector<double> dist(n, 0.0);
  if (n == 0) return dist;
  const std::size_t m = points.front().size();
  std::vector<std::size_t> idx(n);
  for (std::size_t k = 0; k < m; ++k) {
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return points[a][k] < points[b][k]; });
    const double span = points[idx.back()][k] - points[idx.front()][k];
    dist[idx.front()] = dist[idx.back()] = std::numeric_limits<double>::infinity();
    if (span <= 0) continue;
    for (std::size_t i = 1; i + 1 < n; ++i)
      dist[idx[i]] += (points[idx[i + 1]][k] - points[idx[i - 1]][k]) / span;
  }
  return dist;
}

} // namespace hs::pareto
