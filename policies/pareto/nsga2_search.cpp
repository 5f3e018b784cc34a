#include "policies/pareto/nsga2_search.hpp"

#include "policies/pareto/archive_search.hpp"
#include "sim/random.hpp"

#include <algorithm>
#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>

namespace hs::pareto {
namespace {

// pagmo's user-defined problem: copies share the one SearchState. pagmo refuses variables whose bounds
// are equal, so NSGA-II sees only the genes with a choice (`free`); the others stay 0.
struct PlacementUdp {
  SearchState* state = nullptr;
  std::vector<std::size_t> free;

  pagmo::vector_double fitness(const pagmo::vector_double& x) const {
    Genome g(state->problem().encoding().size(), 0);
    for (std::size_t i = 0; i < x.size(); ++i)
      g[free[i]] = static_cast<int>(std::lround(x[i]));
    const auto ref = state->problem().reference_point();
    auto v = state->submit(g, "nsga2");
    if (!v)
      v = state->problem().evaluate(g); // over budget: answered, but kept out of the archive and the count
    if (v->scores.feasible) return v->point;
    pagmo::vector_double penalised = ref;
    for (std::size_t i = 0; i < penalised.size(); ++i)
      penalised[i] += std::isfinite(v->point[i]) ? std::max(0.0, v->point[i] - ref[i]) + 1.0 : 1e6;
    return penalised;
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
    const auto& up = state->problem().encoding().upper();
    pagmo::vector_double hi;
    for (std::size_t i : free)
      hi.push_back(up[i]);
    return {pagmo::vector_double(free.size(), 0.0), hi};
  }
  pagmo::vector_double::size_type get_nobj() const { return state->problem().objectives().size(); }
  pagmo::vector_double::size_type get_nix() const { return free.size(); }
  std::string get_name() const { return "heterosim placement"; }
};

} // namespace

void run_nsga2_search(SearchState& state, const std::vector<Baseline>& baselines, std::uint64_t seed) {
  const Encoding& enc = state.problem().encoding();
  seed_search(state, baselines, "nsga2-seed");
  // Population: a twentieth of the budget, a multiple of 4 (pagmo's requirement) between 8 and 100.
  const int pop_size = std::clamp(state.budget() / 20 / 4 * 4, 8, 100);
  PlacementUdp udp{&state, {}};
  for (std::size_t i = 0; i < enc.size(); ++i)
    if (enc.upper()[i] > 0) udp.free.push_back(i);
  if (udp.free.empty()) { // nothing to choose: the seeds are the whole space
    state.finish();
    return;
  }
  pagmo::problem prob{udp};
  pagmo::population pop(prob, 0u, static_cast<unsigned>(seed));
  Rng rng(seed ^ 0xA5A5F00DULL);
  std::vector<Genome> initial;
  for (const auto& [g, name] : seed_genomes(enc, baselines))
    initial.push_back(g);
  while (static_cast<int>(initial.size()) < pop_size) {
    Genome g(enc.size());
    for (std::size_t i = 0; i < g.size(); ++i)
      g[i] = static_cast<int>(rng.integer(0, enc.upper()[i]));
    initial.push_back(std::move(g));
  }
  initial.resize(static_cast<std::size_t>(pop_size));
  for (const auto& g : initial) {
    pagmo::vector_double x;
    for (std::size_t i : udp.free)
      x.push_back(g[i]);
    pop.push_back(x);
  }
  // One generation per call, until the budget of distinct evaluations is spent (pagmo keeps its own
  // random state between calls, so the run is deterministic for the seed).
  const double mutation = std::clamp(1.0 / static_cast<double>(udp.free.size()), 0.001, 1.0);
  pagmo::nsga2 algo(1u, 0.95, 10., mutation, 50., static_cast<unsigned>(seed));
  long long generations_left = 64LL * state.budget() / pop_size + 100;
  while (!state.exhausted() && generations_left-- > 0)
    pop = algo.evolve(pop);
  state.finish();
}

} // namespace hs::pareto
