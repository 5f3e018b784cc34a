#pragma once
// Summary of prediction errors: mean absolute percentage error and percentiles of the absolute error.
#include <string>
#include <vector>

namespace hs::validation {

struct ErrorStats {
  int count = 0;
  double mape = 0.0; // percent
  double p50 = 0.0;  // percent, of |predicted - measured| / measured
  double p95 = 0.0;
  double max = 0.0;
  double mean_signed = 0.0; // percent: > 0 means the model predicts too slow
};

// Signed percentage error of one prediction.
double percent_error(double predicted, double measured);

// From signed percentage errors.
ErrorStats summarize(const std::vector<double>& signed_percent_errors);

} // namespace hs::validation
