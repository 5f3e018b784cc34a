// Which engine should run the request-level serving simulation (docs/serving.md)? The same M/D/1 queue,
// rho 0.8, N requests, run two ways:
//   serving_des_bench simgrid N     SimGrid s4u: an arrival actor sleeps between arrivals and queues
//                                   requests; a server actor on gpu0 executes each request's service time,
//                                   as the replay's stream actors execute ops (sim/simgrid_engine.cpp);
//   serving_des_bench inprocess N   serving/'s in-process event queue (simulate_serving).
// Prints: mode, requests, CPU seconds, ns per request, mean wait (both must agree with rho/(2 mu (1-rho))).
#include "serving/request_simulation.hpp"
#include "sim/random.hpp"
#include "sim/simgrid_replay_support.hpp"
#include "tests/serving_support.hpp"

#include <cstdio>
#include <ctime>
#include <deque>
#include <string>

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kService = 0.01, kRho = 0.8;

double simgrid_mean_wait(std::uint64_t n) {
  const hs::Platform p = hs::load_platform("hetero-server");
  std::deque<double> queue; // arrival times
  hs::replay::Waitable signal;
  double waited = 0.0;
  bool done = false;
  hs::replay::simulate(
      p, {},
      [&](hs::SimgridPlatform& sg) {
        sg4::Actor::create("arrivals", sg.hosts[0], [&] {
          hs::Rng rng(1);
          for (std::uint64_t i = 0; i < n; ++i) {
            sg4::this_actor::sleep_for(-std::log1p(-rng.uniform()) * kService / kRho);
            queue.push_back(sg4::Engine::get_clock());
            signal.notify();
          }
          done = true;
          signal.notify();
        });
        sg4::Actor::create("server", sg.hosts[1], [&] {
          for (;;) {
            signal.wait_for([&] { return !queue.empty() || done; });
            if (queue.empty()) return;
            waited += sg4::Engine::get_clock() - queue.front();
            queue.pop_front();
            sg4::this_actor::execute(kService * hs::kNominalSpeed);
          }
        });
      },
      [] { return std::string(); });
  return waited / static_cast<double>(n);
}

double inprocess_mean_wait(std::uint64_t n) {
  hs::serving::TenantSpec t = hs::test::poisson_tenant("t", kRho / kService, 1e9);
  const std::vector<hs::serving::TenantSpec> tenants{t};
  hs::test::FixedService fixed([](std::size_t, int) { return kService; });
  hs::serving::GeneratedArrivals arrivals(tenants, 1, n);
  const auto r = hs::serving::simulate_serving(tenants, fixed, arrivals, {});
  return r.tenants[0].queue_sum / static_cast<double>(n);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: serving_des_bench simgrid|inprocess REQUESTS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const auto n = static_cast<std::uint64_t>(std::stoull(argv[2]));
  const std::clock_t began = std::clock();
  const double wait = mode == "simgrid" ? simgrid_mean_wait(n) : inprocess_mean_wait(n);
  const double cpu = static_cast<double>(std::clock() - began) / CLOCKS_PER_SEC;
  std::printf("%s %llu %.3f %.0f %.6f\n", mode.c_str(), static_cast<unsigned long long>(n), cpu,
              cpu * 1e9 / static_cast<double>(n), wait);
  return 0;
}
