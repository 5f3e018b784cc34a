#include "validation/wave_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace hs::validation {

namespace {

constexpr std::size_t kParams = 7;
using Vec = std::array<double, kParams>;

// Unconstrained coordinates: the layout factor through a logistic (0, 1), the rest through exp (> 0).
double logistic(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

WaveParams params_of(const Vec& x) {
  WaveParams p;
  p.peak_efficiency = std::exp(x[0]); // may pass 1: Winograd and FFT convolutions beat the direct FLOPs
  p.tile_intensity_knee = std::exp(x[1]);
  p.memory_efficiency = std::exp(x[2]); // may pass 1: caches serve re-read operands
  p.launch_seconds = std::exp(x[3]);
  p.watts_per_tflops = std::exp(x[4]);
  p.transposed_a_efficiency = logistic(x[5]);
  p.tile_k_overhead = std::exp(x[6]);
  return p;
}

Vec vec_of(const WaveParams& p) {
  const double t = std::clamp(p.transposed_a_efficiency, 1e-6, 1 - 1e-6);
  const auto ln = [](double v) { return std::log(std::max(v, 1e-12)); };
  return {ln(p.peak_efficiency),  ln(p.tile_intensity_knee), ln(p.memory_efficiency), ln(p.launch_seconds),
          ln(p.watts_per_tflops), std::log(t / (1 - t)),     ln(p.tile_k_overhead)};
}

Vec start() {
  const WaveParams p;
  const auto logit = [](double v) { return std::log(v / (1 - v)); };
  return {std::log(p.peak_efficiency),
          std::log(p.tile_intensity_knee),
          std::log(p.memory_efficiency),
          std::log(p.launch_seconds),
          std::log(15.0),
          logit(0.9),
          0.0}; // a tile_k_overhead of one step
}

// Nelder-Mead with the standard coefficients, a fixed number of evaluations: deterministic.
template <std::size_t N, typename Objective>
std::array<double, N> nelder_mead(const Objective& f, std::array<double, N> x0, int evaluations) {
  using Point = std::array<double, N>;
  std::array<Point, N + 1> simplex;
  std::array<double, N + 1> value{};
  for (std::size_t i = 0; i <= N; ++i) {
    simplex[i] = x0;
    if (i > 0) simplex[i][i - 1] += 0.5;
    value[i] = f(simplex[i]);
  }
  int used = static_cast<int>(N) + 1;
  const auto along = [](const Point& c, const Point& w, double t) {
    Point r;
    for (std::size_t j = 0; j < N; ++j)
      r[j] = c[j] + t * (w[j] - c[j]);
    return r;
  };
  while (used < evaluations) {
    std::array<std::size_t, N + 1> order{};
    for (std::size_t i = 0; i <= N; ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    const std::size_t worst = order[N], second = order[N - 1], best = order[0];
    Point centre{};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        centre[j] += simplex[order[i]][j] / N;
    const Point reflected = along(centre, simplex[worst], -1.0);
    const double fr = f(reflected);
    ++used;
    if (fr < value[best]) {
      const Point expanded = along(centre, simplex[worst], -2.0);
      const double fe = f(expanded);
      ++used;
      simplex[worst] = fe < fr ? expanded : reflected;
      value[worst] = std::min(fe, fr);
    } else if (fr < value[second]) {
      simplex[worst] = reflected;
      value[worst] = fr;
    } else {
      const Point contracted = along(centre, simplex[worst], 0.5);
      const double fc = f(contracted);
      ++used;
      if (fc < value[worst]) {
        simplex[worst] = contracted;
        value[worst] = fc;
      } else {
        for (std::size_t i = 1; i <= N; ++i) {
          simplex[order[i]] = along(simplex[best], simplex[order[i]], 0.5);
          value[order[i]] = f(simplex[order[i]]);
          ++used;
        }
      }
    }
  }
  return simplex[static_cast<std::size_t>(std::min_element(value.begin(), value.end()) - value.begin())];
}

// Summed |predicted / measured - 1| over `points`, each prediction `overhead` seconds longer than the wave
// model's.
double relative_error_sum(const std::vector<WavePoint>& points, const WaveParams& p, double overhead) {
  double sum = 0;
  for (const auto& pt : points)
    sum += std::abs((gemm_wave_time(pt.shape, pt.device, p).seconds + overhead) / pt.seconds - 1.0);
  return sum;
}

Vec fit_all(const std::vector<WavePoint>& points, const Vec& x0, int evaluations) {
  return nelder_mead([&](const Vec& x) { return wave_mape(points, params_of(x)); }, x0, evaluations);
}

} // namespace

double wave_mape(const std::vector<WavePoint>& points, const WaveParams& p) {
  if (points.empty()) return 0.0;
  return 100.0 * relative_error_sum(points, p, 0.0) / static_cast<double>(points.size());
}

WaveParams fit_wave(const std::vector<WavePoint>& points) {
  // Two rounds: the second restarts from the first's best, which gets Nelder-Mead out of a collapsed
  // simplex on this piecewise objective.
  Vec x = fit_all(points, start(), 400);
  x = fit_all(points, x, 300);
  return params_of(x);
}

WaveParams refit_wave(const std::vector<WavePoint>& points, const WaveParams& from) {
  if (points.empty()) return from;
  return params_of(fit_all(points, vec_of(from), 300));
}

constexpr double kMaxBoardMemoryEfficiency = 2.0;

BoardRefit refit_wave_board(const std::vector<WavePoint>& points, const WaveParams& from) {
  if (points.empty()) return {from, 0.0};
  // y: the logarithms of the board's memory efficiency, its watts per TFLOP/s, and the timing's overhead.
  const auto params = [&](const std::array<double, 3>& y) {
    WaveParams p = from;
    // Above 1 where caches serve re-read operands; bounded, since a board none of whose points is
    // memory-bound leaves it free (the T4's drifted to 1e12).
    p.memory_efficiency = std::min(std::exp(y[0]), kMaxBoardMemoryEfficiency);
    p.watts_per_tflops = std::exp(y[1]);
    return p;
  };
  const auto f = [&](const std::array<double, 3>& y) {
    return relative_error_sum(points, params(y), std::exp(y[2])) / static_cast<double>(points.size());
  };
  std::array<double, 3> y = {std::log(from.memory_efficiency),
                             std::log(std::max(from.watts_per_tflops, 1e-3)),
                             std::log(std::max(from.launch_seconds, 1e-7))};
  y = nelder_mead(f, y, 200);
  y = nelder_mead(f, y, 100);
  return {params(y), std::exp(y[2])};
}

} // namespace hs::validation
