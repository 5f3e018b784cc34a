#pragma once
// What both search algorithms share: the evaluation budget (distinct analytic evaluations; a genome seen
// before is answered from memory and not counted again), the archive, the hypervolume history, and the
// progress callback.
#include "policies/pareto/problem.hpp"

#include <functional>
#include <map>
#include <optional>

namespace hs::pareto {

struct EvaluatedGenome {
  const Genome* genome;
  const Evaluated* value;
};

struct HistoryPoint {
  int evaluations = 0;
  double hypervolume = 0.0;
  int front_size = 0;
};

using ProgressFn = std::function<void(const HistoryPoint& now, int budget)>;

class SearchState {
public:
  SearchState(const ParetoProblem& problem, int budget, ProgressFn progress = {});

  const ParetoProblem& problem() const { return *problem_; }
  bool exhausted() const { return evaluations_ >= budget_; }
  int evaluations() const { return evaluations_; }
  int budget() const { return budget_; }

  // Evaluates (or recalls) a genome and offers it to the archive; nothing once the budget is spent.
  std::optional<Evaluated> submit(const Genome& g, const std::string& origin);
  bool seen(const Genome& g) const { return memo_.count(g) > 0; }
  // A baseline's exact plan; counted against the budget like any evaluation.
  void submit_baseline(const Baseline& b);

  const Archive& archive() const { return archive_; }
  // Every genome evaluated so far, in the order of evaluation.
  const std::vector<EvaluatedGenome>& evaluated() const { return evaluated_; }
  const std::vector<HistoryPoint>& history() const { return history_; }
  // Records the final point of the history (call once the algorithm stops).
  void finish();

private:
  void after_evaluation();
  const ParetoProblem* problem_;
  int budget_;
  ProgressFn progress_;
  int evaluations_ = 0;
  int checkpoint_every_;
  std::map<Genome, Evaluated> memo_;
  std::vector<EvaluatedGenome> evaluated_;
  Archive archive_;
  std::vector<HistoryPoint> history_;
};

} // namespace hs::pareto
