#pragma once
// "Nice" axis ticks for the SVG charts: steps of 1, 2 or 5 times a power of ten, labelled in one unit per
// axis ("0 ms", "20 ms", ...) so a reader compares labels without converting prefixes.
#include <string>
#include <vector>

namespace hs {

enum class AxisUnit {
  Plain,   // a bare number; k/M/G/T suffixes from 10^4 up
  Seconds, // ns, us, ms or s
  Bytes,   // B, kB, MB, GB, TB (decimal prefixes, as units::format_bytes prints)
};

struct AxisTicks {
  double step = 1.0;
  std::vector<double> values;      // multiples of step inside [lo, hi], ascending
  std::vector<std::string> labels; // one per value, all in the same unit
};

// The smallest step of the form {1, 2, 5} x 10^k that cuts `range` into at most `target` intervals.
double nice_step(double range, int target);

// Ticks inside [lo, hi] (bounds included, up to rounding). A degenerate or non-finite range is widened to
// something drawable rather than refused: a chart of one point still needs an axis.
AxisTicks nice_ticks(double lo, double hi, AxisUnit unit = AxisUnit::Plain, int target = 5);

// One value printed as the tick labels of an axis with this step print it.
std::string tick_label(double value, double step, double largest_magnitude, AxisUnit unit);

} // namespace hs
