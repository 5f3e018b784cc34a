#pragma once
// The baseline algorithm in the same code path: pagmo's NSGA-II (Deb et al. 2002) on the same integer
// encoding, the same evaluator, the same seeds and the same budget of distinct evaluations. pagmo
// evolves a population; every fitness call goes through SearchState, which also keeps the archive of
// every non-dominated plan NSGA-II has evaluated (so its front is measured the same way as ours).
// Infeasible plans get the reference point plus their violation, which NSGA-II's ranking pushes out.
#include "policies/pareto/search_state.hpp"

namespace hs::pareto {

void run_nsga2_search(SearchState& state, const std::vector<Baseline>& baselines, std::uint64_t seed);

} // namespace hs::pareto
