#pragma once
// The project's search: an archive of non-dominated plans, seeded with the baselines' exact plans and
// their projections onto the encoding (plus every-super-node-on-one-device plans, each also fused),
// grown by neighbourhood moves around archive members. Parents are drawn by binary tournament on their
// exclusive hypervolume contribution (pagmo, exact), so the members that hold up the front the most are
// explored first. Moves: move a super-node to another allowed device; move a super-node and its
// neighbours together (a coupled region migrates at once); move a run of super-nodes consecutive in
// topological order (a pipeline-like cut); toggle a fusion or set all of them; change a split. A child
// takes one to three moves, or (a quarter of the time) is a uniform crossover of two members with at
// most one move. Percentages and the choice of parent selection: README.md.
#include "policies/pareto/prior_guide.hpp"
#include "policies/pareto/search_state.hpp"

namespace hs::pareto {

// The baselines' projections and every-super-node-on-one-device genomes, each also with all fusions on.
std::vector<std::pair<Genome, std::string>> seed_genomes(const Encoding& enc,
                                                         const std::vector<Baseline>& baselines);
// Submits the baselines' exact plans and seed_genomes().
void seed_search(SearchState& state, const std::vector<Baseline>& baselines, const std::string& origin);
// With a guide (prior_guide.hpp), its seeds are added, a share of the children are its proposals around the
// beam or around the front's best plan on one objective (a corner), each kind drawn by its recent
// hypervolume gain per evaluation (PriorGuideOptions::adaptive), and every child that enters the front
// reinforces it; the budget is the same.
void run_archive_search(SearchState& state, const std::vector<Baseline>& baselines, std::uint64_t seed,
                        PriorGuide* guide = nullptr);

} // namespace hs::pareto
