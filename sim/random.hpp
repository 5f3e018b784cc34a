#pragma once
// A seeded generator whose numbers are the same on every platform and standard library: the
// <random> distributions are implementation-defined, so HeteroSim draws through these helpers only.
#include <cmath>
#include <cstdint>

namespace hs {

class Rng {
public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // splitmix64 (Steele, Lea, Flood 2014): fast, and fully specified.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Integer in [lo, hi], both included.
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  // Lognormal with mean 1 and coefficient of variation `cv` (Box-Muller).
  double lognormal_unit_mean(double cv) {
    const double sigma2 = std::log1p(cv * cv);
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return std::exp(std::sqrt(sigma2) * z - sigma2 / 2);
  }

private:
  std::uint64_t state_;
};

} // namespace hs
