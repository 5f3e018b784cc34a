#include "policies/pareto/surrogate_screen.hpp"

#include "policies/pareto/hypervolume.hpp"

#include <algorithm>

namespace hs::pareto {

SurrogateScreen::SurrogateScreen(const SearchState& state, const KinClasses& kin, SurrogateScreenOptions o)
    : options_(o), objectives_(state.problem().reference_point().size()),
      devices_(state.problem().cost().platform().device_count()),
      model_(state.problem().encoding(), kin, objectives_ + devices_, o.ridge) {
  const auto& objectives = state.problem().objectives();
  for (std::size_t k = 0; k < objectives.size(); ++k)
    if (objectives[k] == Objective::Memory) memory_ = k;
}

std::vector<double> SurrogateScreen::targets(const SearchState& state, const Evaluated& v) const {
  std::vector<double> t = v.point;
  const auto& devices = state.problem().cost().platform().devices;
  for (std::size_t d = 0; d < devices_; ++d)
    t.push_back(d < v.scores.peak_bytes.size() ? v.scores.peak_bytes[d] / devices[d].memory_capacity : 0.0);
  return t;
}

bool SurrogateScreen::ready(const SearchState& state) {
  if (model_.features() > options_.max_features) return false;
  const auto& done = state.evaluated();
  for (; learned_ < done.size(); ++learned_)
    if (done[learned_].value->scores.feasible)
      model_.add(*done[learned_].genome, targets(state, *done[learned_].value));
  if (model_.samples() >= last_fit_ + options_.refit_every) {
    model_.fit();
    last_fit_ = model_.samples();
  }
  return model_.fitted();
}

std::vector<double> SurrogateScreen::predict(const SearchState& state, const Entry& parent,
                                             const Genome& child) const {
  const auto base = targets(state, parent.value);
  const auto p = model_.predict(child), q = model_.predict(parent.genome);
  std::vector<double> out(objectives_);
  for (std::size_t k = 0; k < objectives_; ++k)
    out[k] = base[k] + p[k] - q[k];
  if (memory_) {
    double peak = 0, parent_peak = 0;
    for (std::size_t d = 0; d < devices_; ++d) {
      const std::size_t i = objectives_ + d;
      peak = std::max(peak, base[i] + p[i] - q[i]);
      parent_peak = std::max(parent_peak, base[i]);
    }
    // In the objective's own units (the normalised value may scale the ratio).
    if (parent_peak > 0) out[*memory_] = base[*memory_] * peak / parent_peak;
  }
  return out;
}

std::optional<Genome> SurrogateScreen::best_of(const SearchState& state,
                                               std::vector<Candidate> candidates) const {
  auto front = state.archive().points();
  const auto& ref = state.problem().reference_point();
  const double now = hypervolume(front, ref);
  std::optional<Genome> best;
  double best_score = -1e300;
  for (Candidate& c : candidates) {
    if (state.seen(c.genome)) continue;
    const auto p = predict(state, *c.parent, c.genome);
    // How far p is from every member in its best objective: positive when no member weakly dominates p
    // (it would enter the front), else minus how much p must still improve to enter.
    double margin = 1e300;
    for (const auto& a : front) {
      double best_k = -1e300;
      for (std::size_t k = 0; k < p.size(); ++k)
        best_k = std::max(best_k, a[k] - p[k]);
      margin = std::min(margin, best_k);
    }
    double score = margin; // entering the front outranks nearing it
    if (margin > 0) {
      front.push_back(p);
      score = 1.0 + (hypervolume(front, ref) - now);
      front.pop_back();
    }
    if (score > best_score) {
      best_score = score;
      best = std::move(c.genome);
    }
  }
  return best;
}

} // namespace hs::pareto
