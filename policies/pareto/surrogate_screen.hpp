#pragma once
// The archive search's use of the surrogate (surrogate.hpp): it learns every feasible plan the search
// evaluates and, of a batch of candidate children, names the one predicted to add most hypervolume (where
// none is predicted to enter the front: the one predicted closest to it). A candidate is predicted as its
// parent's evaluated values moved by the model's predicted difference between the two, so the model's
// error where they agree cancels; the memory objective as the largest of the devices' predicted peak /
// capacity, since a maximum is not additive. Graphs whose features outnumber `max_features` are not
// screened (the normal equations would cost more than they save).
#include "policies/pareto/search_state.hpp"
#include "policies/pareto/surrogate.hpp"

#include <optional>

namespace hs::pareto {

// A child and the archive member it was made from.
struct Candidate {
  const Entry* parent;
  Genome genome;
};

struct SurrogateScreenOptions {
  int refit_every = 4; // evaluations between refits
  std::size_t max_features = 600;
  double ridge = 1e-3;
};

class SurrogateScreen {
public:
  SurrogateScreen(const SearchState& state, const KinClasses& kin, SurrogateScreenOptions o = {});

  // Learns what was evaluated since it last looked; whether it can rank candidates now.
  bool ready(const SearchState& state);
  // The candidate to evaluate (not seen before); none when every one was seen.
  std::optional<Genome> best_of(const SearchState& state, std::vector<Candidate> candidates) const;
  // A child's predicted (normalised) objectives.
  std::vector<double> predict(const SearchState& state, const Entry& parent, const Genome& child) const;

private:
  // What the model learns: the normalised objectives, then each device's peak memory / capacity.
  std::vector<double> targets(const SearchState& state, const Evaluated& v) const;
  SurrogateScreenOptions options_;
  std::size_t objectives_, devices_;
  std::optional<std::size_t> memory_; // the memory objective's index
  AdditiveSurrogate model_;
  std::size_t learned_ = 0; // of state.evaluated()
  int last_fit_ = 0;
};

} // namespace hs::pareto
