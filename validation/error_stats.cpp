#include "validation/error_stats.hpp"

#include "validation/measurement_set.hpp"

#include <algorithm>
#include <cmath>

namespace hs::validation {

double percent_error(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

ErrorStats summarize(const std::vector<double>& signed_percent_errors) {
  ErrorStats s;
  s.count = static_cast<int>(signed_percent_errors.size());
  if (s.count == 0) return s;
  std::vector<double> abs;
  for (double e : signed_percent_errors) {
    abs.push_back(std::abs(e));
    s.mape += std::abs(e);
    s.mean_signed += e;
  }
  s.mape /= s.count;
  s.mean_signed /= s.count;
  s.p50 = percentile(abs, 0.5);
  s.p95 = percentile(abs, 0.95);
  s.max = abs.back();
  return s;
}

} // namespace hs::validation
