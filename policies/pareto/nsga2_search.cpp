#include "policies/pareto/nsga2_search.hpp"

#include "policies/pareto/archive_search.hpp"
#include "sim/random.hpp"

#include <algorithm>
#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>

namespace hs::pareto {
namespace {

// pagmo's user-defined problem: copies share the one SearchState.
struct PlacementUdp {
  SearchState* state = nullptr;

  pagmo::vector_double fitness(const pagmo::vector_double& x) const {
    Genome g(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) g[i] = static_cast<int>(std::lround(x[i]));
    const auto ref = state->problem().reference_point();
    auto v = state->submit(g, "nsga2");
    if (!v) v = state->problem().evaluate(g); // over budget: answered, but kept out of the archive and the count
    if (v->scores.feasible) return v->point;
    pagmo::vector_double penalised = ref;
    for (std::size_t i = 0; i < penalised.size(); ++i)
      penalised[i] += std::isfinite(v->point[i]) ? std::max(0.0, v->point[i] - ref[i]) + 1.0 : 1e6;
    return penalised;
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
    const auto& up = state->problem().encoding().upper();
    return {pagmo::vector_double(up.size(), 0.0), pagmo::vector_double(up.begin(), up.end())};
  }
  pagmo::vector_double::size_type get_nobj() const { return state->problem().objectives().size(); }
  pagmo::vector_double::size_type get_nix() const { return state->problem().encoding().upper().size(); }
  std::string get_name() const { return "heterosim placement"; }
};

} // namespace

void run_nsga2_search(SearchState& state, const std::vector<Baseline>& baselines, std::uint64_t seed) {
  const Encoding& enc = state.problem().encoding();
  seed_search(state, baselines, "nsga2-seed");
  // Population: a twentieth of the budget, a multiple of 4 (pagmo's requirement) between 8 and 100.
  const int pop_size = std::clamp(state.budget() / 20 / 4 * 4, 8, 100);
  pagmo::problem prob{PlacementUdp{&state}};
  pagmo::population pop(prob, 0u, static_cast<unsigned>(seed));
  Rng rng(seed ^ 0xA5A5F00DULL);
  std::vector<Genome> initial;
  for (const auto& [g, name] : seed_genomes(enc, baselines)) initial.push_back(g);
  while (static_cast<int>(initial.size()) < pop_size) {
    Genome g(enc.size());
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<int>(rng.integer(0, enc.upper()[i]));
    initial.push_back(std::move(g));
  }
  initial.resize(static_cast<std::size_t>(pop_size));
  for (const auto& g : initial) pop.push_back(pagmo::vector_double(g.begin(), g.end()));
  // One generation per call, until the budget of distinct evaluations is spent (pagmo keeps its own
  // random state between calls, so the run is deterministic for the seed).
  const double mutation = std::clamp(1.0 / static_cast<double>(std::max<std::size_t>(1, enc.size())), 0.001, 1.0);
  pagmo::nsga2 algo(1u, 0.95, 10., mutation, 50., static_cast<unsigned>(seed));
  long long generations_left = 64LL * state.budget() / pop_size + 100;
  while (!state.exhausted() && generations_left-- > 0) pop = algo.evolve(pop);
  state.finish();
}

} // namespace hs::pareto
