#include "policies/pareto/hypervolume.hpp"

#include <algorithm>
#include <pagmo/utils/hypervolume.hpp>

namespace hs::pareto {

double hypervolume(const std::vector<std::vector<double>>& points, const std::vector<double>& reference) {
  std::vector<std::vector<double>> inside;
  for (const auto& p : points) {
    bool strictly = p.size() == reference.size();
    for (std::size_t i = 0; strictly && i < p.size(); ++i)
      strictly = p[i] < reference[i];
    if (strictly) inside.push_back(p);
  }
  if (inside.empty()) return 0.0;
  if (reference.size() == 1) {
    double best = inside.front()[0];
    for (const auto& p : inside)
      best = std::min(best, p[0]);
    return reference[0] - best;
  }
  pagmo::hypervolume hv(inside, false);
  return hv.compute(reference);
}

} // namespace hs::pareto
