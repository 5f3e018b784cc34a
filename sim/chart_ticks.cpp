#include "sim/chart_ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hs {
namespace {

struct Scale {
  double factor; // value / factor is printed
  const char* suffix;
};

// One prefix for the whole axis, chosen by its largest magnitude, so an axis never mixes "500 us" with
// "1 ms": labels compare as numbers.
Scale scale_for(double magnitude, AxisUnit unit) {
  switch (unit) {
  case AxisUnit::Seconds:
    if (magnitude >= 1) return {1, " s"};
    if (magnitude >= 1e-3) return {1e-3, " ms"};
    if (magnitude >= 1e-6) return {1e-6, " us"};
    return {1e-9, " ns"};
  case AxisUnit::Bytes:
    if (magnitude >= 1e12) return {1e12, " TB"};
    if (magnitude >= 1e9) return {1e9, " GB"};
    if (magnitude >= 1e6) return {1e6, " MB"};
    if (magnitude >= 1e3) return {1e3, " kB"};
    return {1, " B"};
  case AxisUnit::Plain:
    break;
  }
  if (magnitude >= 1e13) return {1e12, "T"};
  if (magnitude >= 1e10) return {1e9, "G"};
  if (magnitude >= 1e7) return {1e6, "M"};
  if (magnitude >= 1e4) return {1e3, "k"};
  return {1, ""};
}

} // namespace

double nice_step(double range, int target) {
  if (!(range > 0) || !std::isfinite(range)) return 1.0;
  const double raw = range / std::max(1, target);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / power;
  // A relative slack so that 0.0873/5 = 0.01746 takes 2e-2, and 1.0000000001 counts as 1.
  constexpr double slack = 1e-9;
  if (fraction <= 1 + slack) return power;
  if (fraction <= 2 + slack) return 2 * power;
  if (fraction <= 5 + slack) return 5 * power;
  return 10 * power;
}

std::string tick_label(double value, double step, double largest_magnitude, AxisUnit unit) {
  const Scale s = scale_for(largest_magnitude > 0 ? largest_magnitude : step, unit);
  const double scaled_step = step / s.factor;
  // A 1-2-5 step has one significant digit, so its decimals say how many every label needs.
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(scaled_step) + 1e-9)));
  double v = value / s.factor;
  if (std::abs(v) < scaled_step * 1e-6) v = 0.0; // never print "-0" or "1e-17"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, s.suffix);
  return buf;
}

AxisTicks nice_ticks(double lo, double hi, AxisUnit unit, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= std::abs(hi) * 1e-12) { // one value: a range around it
    const double half = lo != 0 ? std::abs(lo) * 0.1 : 1.0;
    lo -= half;
    hi += half;
  }
  AxisTicks t;
  t.step = nice_step(hi - lo, target);
  const double slack = t.step * 1e-9;
  const auto first = static_cast<long long>(std::ceil((lo - slack) / t.step));
  const auto last = static_cast<long long>(std::floor((hi + slack) / t.step));
  double largest = 0;
  for (long long k = first; k <= last; ++k) {
    t.values.push_back(static_cast<double>(k) * t.step); // k x step, never accumulated sums
    largest = std::max(largest, std::abs(t.values.back()));
  }
  for (double v : t.values)
    t.labels.push_back(tick_label(v, t.step, largest, unit));
  return t;
}

} // namespace hs
