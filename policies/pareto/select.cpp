#include "policies/pareto/select.hpp"

#include "sim/error.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs::pareto {

Limit parse_limit(std::size_t objective, const std::string& text) {
  Limit l;
  l.objective = objective;
  std::string number = text;
  if (!number.empty() && (number.back() == 'x' || number.back() == 'X')) {
    l.relative = true;
    number.pop_back();
  }
  std::size_t used = 0;
  try {
    l.value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !std::isfinite(l.value) || l.value < 0)
    throw std::invalid_argument("'" + text +
                                "' is not a limit (a non-negative number, or a multiple such as 1.05x)");
  return l;
}

std::optional<std::size_t> select_plan(const std::vector<std::vector<double>>& values, std::size_t minimise,
                                       const std::vector<Limit>& limits) {
  std::vector<double> bound;
  for (const auto& l : limits) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& v : values)
      best = std::min(best, v[l.objective]);
    bound.push_back(l.relative ? l.value * best : l.value);
  }
  std::optional<std::size_t> chosen;
  for (std::size_t i = 0; i < values.size(); ++i) {
    bool ok = true;
    for (std::size_t k = 0; k < limits.size() && ok; ++k)
      ok = values[i][limits[k].objective] <= bound[k];
    if (ok && (!chosen || values[i][minimise] < values[*chosen][minimise])) chosen = i;
  }
  return chosen;
}

std::optional<std::size_t> weighted_choice(const std::vector<std::vector<double>>& values,
                                           const std::vector<double>& weights) {
  std::optional<std::size_t> chosen;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < values.size(); ++i) {
    double s = 0;
    for (std::size_t k = 0; k < weights.size() && k < values[i].size(); ++k)
      s += weights[k] * values[i][k];
    if (s < best) {
      best = s;
      chosen = i;
    }
  }
  return chosen;
}

std::vector<double> parse_weights(const std::string& text, std::size_t count) {
  std::vector<double> w;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || !(v >= 0))
      throw InputError("--weights", item, "a weight must be a non-negative number");
    w.push_back(v);
  }
  if (w.size() != count)
    throw InputError("--weights", text, "needs one weight per objective (" + std::to_string(count) + ")");
  return w;
}

} // namespace hs::pareto
