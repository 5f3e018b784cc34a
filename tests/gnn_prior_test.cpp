// The learned proposal prior "gnn" (gnn/gnn_prior.cpp) inside the Pareto search: a valid, repeatable
// distribution from the shipped checkpoint, and a guided front at least as good as the unguided one.
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/hypervolume.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

namespace {

double gnn_prior_front_hv(const hs::pareto::ParetoProblem& problem,
                          const std::vector<hs::pareto::Baseline>& b, hs::pareto::PriorGuide* guide,
                          int budget, std::uint64_t seed) {
  hs::pareto::SearchState state(problem, budget);
  hs::pareto::run_archive_search(state, b, seed, guide);
  CHECK(state.evaluations() == budget);
  return hs::pareto::hypervolume(state.archive().points(), problem.reference_point());
}

} // namespace

TEST_CASE("gnn prior: the shipped network's distribution is valid and the same on rerun") {
  const hs::Graph g = hs::load_workload("random:ops=40,precision=fp16", 5);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  const auto& prior = hs::pareto::proposal_prior_registry().get("gnn");
  const auto a = prior.probabilities(cost);
  CHECK_NOTHROW(hs::pareto::check_probabilities(cost, a, "gnn"));
  CHECK(a == prior.probabilities(cost));
}

TEST_CASE(
    "gnn prior: the guided search finds a front at least as good as the unguided one at the same budget") {
  // A small graph, fixed seeds, the same budget of 300 evaluations: the guided archive's hypervolume is at
  // least the unguided one's for each search seed. This does not hold on every small graph at this budget
  // (docs/gnn.md: 12 of 15 runs on five graphs; with the GPU model refitted on newer GPUs' GEMMs, graphs 1,
  // 2, 5, 7 and 8 of seeds 1-8 hold for all three search seeds, 3, 4 and 6 not); this one is where the prior
  // helps most, so that a guide that stops helping fails here.
  const hs::Graph g = hs::load_workload("random:ops=100,precision=fp16", 5);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  const hs::pareto::ParetoProblem problem(cost, hs::pareto::ProblemOptions{});
  const auto probs = hs::pareto::proposal_prior_registry().get("gnn").probabilities(cost);
  const int budget = 300;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto baselines = problem.baselines(seed);
    hs::pareto::PriorGuide guide(problem.encoding(), probs, seed);
    const double unguided = gnn_prior_front_hv(problem, baselines, nullptr, budget, seed);
    const double guided = gnn_prior_front_hv(problem, baselines, &guide, budget, seed);
    std::vector<std::vector<double>> base_points;
    for (const auto& b : baselines)
      base_points.push_back(b.value.point);
    MESSAGE("seed ", seed, ": hypervolume at ", budget, " evaluations: guided ", guided, ", unguided ",
            unguided, ", baselines ", hs::pareto::hypervolume(base_points, problem.reference_point()));
    CHECK(guided >= unguided);
    CHECK(guided > hs::pareto::hypervolume(base_points, problem.reference_point()));
  }
}
