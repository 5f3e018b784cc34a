// The request-level simulation against closed forms of queueing theory: one device, one tenant, Poisson
// arrivals, no batching. Fixed seeds; each tolerance is set from the run's own standard error, estimated
// by batch means (waits in a queue are correlated, so the naive sigma/sqrt(n) would be too small).
#include "serving/request_simulation.hpp"
#include "serving_support.hpp"

#include <cmath>
#include <doctest/doctest.h>

namespace {

using namespace hs::serving;

struct Waits {
  double mean = 0.0;
  double standard_error = 0.0; // of the mean, from 50 batch means
  ServingResult result;
};

// `service` seconds per request (x Exp(1) when exponential), Poisson arrivals at rate rho / service.
Waits simulate_queue(double rho, double service, bool exponential, std::uint64_t n, std::uint64_t seed) {
  TenantSpec t = hs::test::poisson_tenant("t", rho / service, 1e9);
  t.exponential_service = exponential;
  const std::vector<TenantSpec> tenants{t};
  hs::test::FixedService fixed([&](std::size_t, int) { return service; });
  GeneratedArrivals arrivals(tenants, seed, n);
  SimulationOptions o;
  o.seed = seed;
  // One FIFO server finishes requests in arrival order: batch means over that order.
  std::vector<double> batch(50, 0.0);
  std::uint64_t i = 0;
  o.on_finish = [&](std::size_t, double arrival, double start, double) {
    batch[i++ * 50 / n] += (start - arrival) / static_cast<double>(n / 50);
  };
  Waits w;
  w.result = simulate_serving(tenants, fixed, arrivals, o);
  REQUIRE(i == n);
  for (double b : batch)
    w.mean += b / 50.0;
  double var = 0.0;
  for (double b : batch)
    var += (b - w.mean) * (b - w.mean) / 49.0;
  w.standard_error = std::sqrt(var / 50.0);
  return w;
}

} // namespace

// Waits in a queue are correlated, so 100k requests resolve the mean only to its batch-means standard
// error: about 1.1% at rho 0.5 and 2.1-2.4% at rho 0.8 (printed), so "within 2% at 100k" would pass or fail
// by the seed at rho 0.8. At 100k the check is therefore "within three standard errors"; the 2% is checked
// on runs long enough for 2% to be more than three standard errors (1M requests at rho 0.5, 2M at 0.8).
TEST_CASE("M/D/1: mean wait within 2% of rho / (2 mu (1 - rho)) at rho 0.5 and 0.8") {
  const double service = 0.01, mu = 1.0 / service;
  for (const auto& c : {std::pair{0.5, 1000000}, std::pair{0.8, 2000000}}) {
    const double rho = c.first;
    for (const std::uint64_t n : {std::uint64_t{100000}, static_cast<std::uint64_t>(c.second)}) {
      CAPTURE(rho);
      CAPTURE(n);
      const Waits w = simulate_queue(rho, service, false, n, 11);
      const double expected = rho / (2 * mu * (1 - rho));
      MESSAGE("rho " << rho << ", " << n << " requests: mean wait " << w.mean << " s, expected " << expected
                     << " s, error " << 100 * (w.mean / expected - 1) << "%, standard error "
                     << 100 * w.standard_error / expected << "%");
      if (n == 100000) {
        CHECK(std::abs(w.mean - expected) < 3 * w.standard_error);
      } else {
        CHECK(std::abs(w.mean / expected - 1) < 0.02);
        CHECK(3 * w.standard_error / expected < 0.02);
      }
      const auto& t = w.result.tenants[0];
      CHECK(t.arrived == n);
      CHECK(t.served == n);
      // The histogram's mean is the exact mean of latencies: wait plus the fixed service.
      CHECK(t.latency.mean() == doctest::Approx(w.mean + service).epsilon(1e-7));
    }
  }
}

TEST_CASE("M/M/1: P95 latency within 3% of ln(20) / (mu - lambda)") {
  const double service = 0.01, mu = 1.0 / service, rho = 0.5;
  const Waits w = simulate_queue(rho, service, true, 100000, 7);
  const double expected = std::log(20.0) / (mu - rho * mu);
  const double p95 = w.result.tenants[0].latency.quantile(0.95);
  MESSAGE("M/M/1 rho 0.5: P95 " << p95 << " s, expected " << expected << " s, error "
                                << 100 * (p95 / expected - 1) << "%");
  CHECK(std::abs(p95 / expected - 1) < 0.03);
  // The mean sojourn of M/M/1 is 1 / (mu - lambda): a second, independent check of the same run.
  CHECK(w.result.tenants[0].latency.mean() == doctest::Approx(1.0 / (mu - rho * mu)).epsilon(0.03));
}

TEST_CASE("the latency histogram's quantiles are within its stated relative error") {
  LatencyHistogram h;
  for (int i = 1; i <= 10000; ++i)
    h.add(i * 1e-4);
  for (double q : {0.5, 0.95, 0.99}) {
    const double exact = std::ceil(q * 10000) * 1e-4;
    CHECK(std::abs(h.quantile(q) / exact - 1) <= LatencyHistogram::relative_error() * 1.0001);
  }
  CHECK(h.quantile(1.0) == doctest::Approx(1.0));
  CHECK(h.count() == 10000);
}
