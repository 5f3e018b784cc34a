#pragma once
// Picking one plan from a stored front, without searching again (the front is a cache a deployment
// looks up): minimise one objective subject to upper limits on others, or minimise a weighted sum.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace hs::pareto {

struct Limit {
  std::size_t objective = 0;
  double value = 0.0;
  bool relative = false; // value is a multiple of the front's best for that objective ("1.05x")
};

// Parses "1.05x" (relative) or a plain number (absolute, in the objective's raw unit). Throws
// std::invalid_argument on anything else.
Limit parse_limit(std::size_t objective, const std::string& text);

// "--weights 1,0.5,0": one non-negative weight per objective, in the front's objective order.
std::vector<double> parse_weights(const std::string& text, std::size_t count);

// `values[plan][objective]`. The plan minimising `minimise` among those within every limit (ties: the
// earlier plan); nothing when no plan qualifies.
std::optional<std::size_t> select_plan(const std::vector<std::vector<double>>& values, std::size_t minimise,
                                       const std::vector<Limit>& limits);

// The plan minimising sum_i weights[i] * values[plan][i] (values as given, so pass normalised ones).
std::optional<std::size_t> weighted_choice(const std::vector<std::vector<double>>& values,
                                           const std::vector<double>& weights);

} // namespace hs::pareto
