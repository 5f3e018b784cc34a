#pragma once
// Exact hypervolume (pagmo::hypervolume; it picks an exact algorithm by dimension) of a set of
// minimisation points against a reference point. Points that do not strictly dominate the reference
// point contribute nothing and are left out (pagmo refuses them). One objective: reference - best.
#include <vector>

namespace hs::pareto {

double hypervolume(const std::vector<std::vector<double>>& points, const std::vector<double>& reference);

} // namespace hs::pareto
