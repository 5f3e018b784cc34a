#include "policies/pareto/search_state.hpp"

#include "policies/pareto/hypervolume.hpp"

#include <algorithm>

namespace hs::pareto {

SearchState::SearchState(const ParetoProblem& problem, int budget, ProgressFn progress)
    : problem_(&problem), budget_(std::max(1, budget)), progress_(std::move(progress)),
      checkpoint_every_(std::max(1, budget_ / 200)) {}

std::optional<Evaluated> SearchState::submit(const Genome& g, const std::string& origin) {
  if (auto it = memo_.find(g); it != memo_.end()) return it->second;
  if (exhausted()) return std::nullopt;
  Evaluated v = problem_->evaluate(g);
  const auto it = memo_.emplace(g, v).first;
  evaluated_.push_back({&it->first, &it->second});
  ++evaluations_;
  archive_.offer({g, std::nullopt, v, origin, evaluations_});
  after_evaluation();
  return v;
}

void SearchState::submit_baseline(const Baseline& b) {
  ++evaluations_;
  archive_.offer({problem_->encoding().project(b.plan), b.plan, b.value, b.policy, evaluations_});
  after_evaluation();
}

void SearchState::after_evaluation() {
  if (evaluations_ % checkpoint_every_ != 0 && evaluations_ != budget_) return;
  const HistoryPoint h{evaluations_, hypervolume(archive_.points(), problem_->reference_point()),
                       static_cast<int>(archive_.entries().size())};
  history_.push_back(h);
  if (progress_) progress_(h, budget_);
}

void SearchState::finish() {
  if (!history_.empty() && history_.back().evaluations == evaluations_) return;
  history_.push_back({evaluations_, hypervolume(archive_.points(), problem_->reference_point()),
                      static_cast<int>(archive_.entries().size())});
  if (progress_) progress_(history_.back(), budget_);
}

} // namespace hs::pareto
