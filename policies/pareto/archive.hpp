#pragma once
// The set of non-dominated plans found so far. An offered plan enters when no member dominates or equals
// it (so the first of two equal plans stays: deterministic), and evicts the members it dominates.
// Infeasible plans never enter.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/objectives.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs::pareto {

struct Evaluated {
  Scores scores;
  std::vector<double> point; // normalised objectives, as compared
};

struct Entry {
  Genome genome;
  std::optional<Plan> fixed_plan; // a baseline's own plan on the original graph (seeds enter exactly)
  Evaluated value;
  std::string origin; // "heft", "fastest-device", "search", "nsga2", ...
  int evaluation = 0; // when it was found
};

class Archive {
public:
  bool offer(Entry e);
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<std::vector<double>> points() const;
  bool empty() const { return entries_.empty(); }

private:
  std::vector<Entry> entries_;
};

// NSGA-II's crowding distance of each point within the set (boundary points: infinity).
std::vector<double> crowding_distance(const std::vector<std::vector<double>>& points);

} // namespace hs::pareto
