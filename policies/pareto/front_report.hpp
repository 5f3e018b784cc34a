#pragma once
// A finished search written out: the front (each plan with its objective values from the search's
// evaluator and from the SimGrid replay, its rewrites, its placement and its per-device order) as JSON and
// CSV, the hypervolume history as CSV, a text table, and one SVG per objective pair with the baselines
// marked. The replay is the final judge: once replayed, the front is defined on replayed values (members
// the replay shows dominated are dropped) and plots, hypervolume and picks use them. Plans are sorted by
// their normalised objectives, so the files are byte-identical for a given seed.
#include "policies/pareto/search_state.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs::pareto {

struct FrontReport {
  std::string platform, workload, algorithm;
  std::uint64_t seed = 0;
  int budget = 0;
  int evaluations = 0;
  std::vector<Baseline> baselines;
  std::vector<std::string> skipped_baselines;
  std::vector<Entry> plans;                      // sorted; Entry::value holds the evaluator's values
  std::vector<std::optional<Evaluated>> simgrid; // per plan, when replayed
  std::vector<std::optional<Evaluated>> baselines_simgrid; // per baseline, when replayed
  std::vector<std::string> dropped_by_replay; // "origin: why" for members the replay showed dominated
  std::vector<HistoryPoint> history;
  std::vector<double> weights;         // weighted-sum mode, when given
  std::optional<std::size_t> weighted; // the plan it picks
};

// Sorts the archive's entries and fills `plans`.
FrontReport make_front_report(const SearchState& state);

// Replays each plan and each baseline in SimGrid (one forked process each), drops plans that are
// infeasible or dominated on replayed values, and sorts the rest by their replayed normalised values.
void replay_in_simgrid(const ParetoProblem& problem, FrontReport& r);

// The values the front is defined on: replayed when the front was replayed, else the evaluator's.
const Evaluated& final_value(const FrontReport& r, std::size_t plan);
const Evaluated& final_baseline_value(const FrontReport& r, std::size_t baseline);
std::string final_engine(const FrontReport& r); // "simgrid" or "evaluator"

nlohmann::ordered_json front_json(const ParetoProblem& problem, const FrontReport& r);
std::string front_csv(const ParetoProblem& problem, const FrontReport& r);
std::string history_csv(const FrontReport& r);
std::string front_table(const ParetoProblem& problem, const FrontReport& r);
// One SVG per pair of objectives: {file stem, svg text}.
std::vector<std::pair<std::string, std::string>> front_plots(const ParetoProblem& problem,
                                                             const FrontReport& r);

} // namespace hs::pareto
