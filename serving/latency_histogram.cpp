#include "serving/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hs::serving {
namespace {

constexpr double kLowest = 1e-7;  // seconds: the first bucket's lower edge
constexpr double kHighest = 1e5;  // seconds: beyond any latency a serving run reports
constexpr double kGrowth = 1.001; // each bucket 0.1% wider than the last
const double kLogGrowth = std::log(kGrowth);
const std::size_t kBuckets =
    static_cast<std::size_t>(std::ceil(std::log(kHighest / kLowest) / kLogGrowth)) + 1;

std::size_t bucket_of(double seconds) {
  if (!(seconds > kLowest)) return 0;
  const double i = std::floor(std::log(seconds / kLowest) / kLogGrowth);
  return std::min(kBuckets - 1, static_cast<std::size_t>(i));
}

} // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBuckets, 0) {}

double LatencyHistogram::relative_error() {
  return (kGrowth - 1.0) / 2.0;
}

void LatencyHistogram::add(double seconds) {
  ++buckets_[bucket_of(seconds)];
  min_ = count_ ? std::min(min_, seconds) : seconds;
  max_ = count_ ? std::max(max_, seconds) : seconds;
  sum_ += seconds;
  ++count_;
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0.0;
  const auto rank = static_cast<std::uint64_t>(std::max(1.0, std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen < rank) continue;
    const double mid = kLowest * std::pow(kGrowth, static_cast<double>(i) + 0.5);
    return std::clamp(mid, min_, max_); // the extremes are known exactly
  }
  return max_;
}

} // namespace hs::serving
