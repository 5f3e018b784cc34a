// The Pareto cache's two figures (issue 11, part 2): the cost of a lookup per request (bucket by shape,
// then a plan by objective), and the quality of the bucket's plan replayed on a request's own shape
// against a full search on that exact shape, over shapes inside the buckets that are not buckets.
//   serving_cache_bench [budget] [workload]   (default 200, bert-base:batch=1)
#include "serving/pareto_cache.hpp"
#include "sim/contention_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using namespace hs::serving;

struct Replayed {
  double latency, energy;
};

Replayed replay_cached(const CachedPlan& c, const hs::Platform& p, const std::string& workload, int seq) {
  const hs::Graph g = hs::load_workload(cache_spec_at(workload, seq));
  const hs::CostModel cost(g, p);
  const auto stored = cached_plan_on(c, cost);
  const hs::Execution e = hs::run_contention(stored.plan, *stored.cost);
  double joules = 0.0;
  for (double j : e.device_energy)
    joules += j;
  for (double j : e.link_energy)
    joules += j;
  return {e.makespan, joules};
}

} // namespace

int main(int argc, char** argv) {
  const int budget = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string workload = argc > 2 ? argv[2] : "bert-base:batch=1";
  const hs::Platform p = hs::load_platform("hetero-server");
  const CacheSearch search{budget, 1};
  ParetoCache cache;
  const auto began = std::chrono::steady_clock::now();
  for (int seq : {32, 64, 128})
    cache.add_bucket(p, "t", workload, seq, search);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::printf("cache of 3 buckets (32, 64, 128), budget %d: built in %.2f s\n", budget, build_s);

  // Lookup: 1M requests of shapes 1..128, bucket then least energy within a 20 ms SLO.
  const int n = 1000000;
  double sink = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const int seq = 1 + static_cast<int>((static_cast<unsigned>(i) * 2654435761u) % 128u);
    sink +=
        ParetoCache::pick(cache.bucket("t", seq, false, p, search), PlanObjective::LeastEnergyWithinSlo, 0.02)
            .energy;
  }
  const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("lookup: %.1f ns per request over %d requests (checksum %.3g)\n", per * 1e9, n, sink);

  // Quality: 20 shapes that are not buckets; both picks, the cache's replayed at the exact shape.
  std::printf("seq  objective       cache_lat_ms exact_lat_ms  lat_err%%  cache_J  exact_J  energy_err%%\n");
  double worst_lat = 0.0, worst_energy = 0.0;
  for (int k = 0; k < 20; ++k) {
    const int seq = 33 + 5 * k - (k == 19 ? 1 : 0); // 33, 38, ..., 123, 127
    const CacheBucket exact{seq, search_cache_front(p, cache_spec_at(workload, seq), search)};
    const CacheBucket& bucket = cache.bucket("t", seq, false, p, search);
    for (PlanObjective o : {PlanObjective::LeastLatency, PlanObjective::LeastEnergyWithinSlo}) {
      // The limit: 1.2 x the exact shape's fastest plan, so the constraint binds.
      const double limit = 1.2 * exact.front.front().latency;
      const Replayed c = replay_cached(ParetoCache::pick(bucket, o, limit), p, workload, seq);
      const Replayed e = replay_cached(ParetoCache::pick(exact, o, limit), p, workload, seq);
      const double le = 100 * (c.latency / e.latency - 1), ee = 100 * (c.energy / e.energy - 1);
      const bool latency_objective = o == PlanObjective::LeastLatency;
      if (latency_objective) worst_lat = std::max(worst_lat, le);
      if (!latency_objective) worst_energy = std::max(worst_energy, ee);
      std::printf("%3d  %-14s  %11.4f  %11.4f  %8.2f  %7.4f  %7.4f  %8.2f\n", seq,
                  latency_objective ? "least-latency" : "energy<=1.2xmin", 1e3 * c.latency, 1e3 * e.latency,
                  le, c.energy, e.energy, ee);
    }
  }
  std::printf("worst: least-latency latency %+.2f%%, least-energy-within-limit energy %+.2f%%\n", worst_lat,
              worst_energy);
  return 0;
}
