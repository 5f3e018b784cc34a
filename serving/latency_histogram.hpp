#pragma once
// Latency quantiles in fixed memory, however many requests: a histogram of logarithmic buckets (the
// HdrHistogram idea) from 100 ns to 1e5 s, each bucket 0.1% wide, so a quantile read from a bucket's
// geometric midpoint is within 0.05% of the exact sample quantile (relative), and the structure is 28k
// counters (221 KiB) per histogram. Values below the range count in the first bucket; the exact minimum,
// maximum and sum are kept beside it.
#include <cstdint>
#include <vector>

namespace hs::serving {

class LatencyHistogram {
public:
  LatencyHistogram();

  void add(double seconds);
  std::uint64_t count() const { return count_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double max() const { return max_; }
  // The q-quantile (q in [0, 1]) as the smallest value with at least ceil(q n) samples at or below it,
  // within the bucket width; 0 when empty.
  double quantile(double q) const;
  // The relative half-width of a bucket: the error bound of quantile().
  static double relative_error();

private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  double sum_ = 0.0, min_ = 0.0, max_ = 0.0;
};

} // namespace hs::serving
