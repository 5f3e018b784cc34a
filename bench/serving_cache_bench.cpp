// The Pareto cache's two figures (issue 11, part 2): the cost of a lookup per request (bucket by shape,
// then a plan by objective), and the quality of the bucket's plan replayed on a request's own shape
// against a full search on that exact shape, over 20 shapes inside the buckets that are not buckets.
//   serving_cache_bench [budget] [refine] [batch] [buckets]
//   (default 200, 0 = buckets as given, 1, "32,64,128"; refine 0.05 adds buckets where a midpoint loses 5%)
#include "serving/pareto_cache_refine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

using namespace hs::serving;

std::vector<int> bucket_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(std::atoi(item.c_str()));
  return out;
}

// A shape the cache has seen: a bucket, or a shape its refinement searched.
bool seen(const CacheTenant& t, const std::vector<int>& probes, int seq, int batch) {
  return std::count(probes.begin(), probes.end(), seq) > 0 ||
         std::any_of(t.buckets.begin(), t.buckets.end(),
                     [&](const CacheBucket& b) { return b.seq == seq && b.batch == batch; });
}

} // namespace

int main(int argc, char** argv) {
  const int budget = argc > 1 ? std::atoi(argv[1]) : 200;
  const double refine = argc > 2 ? std::atof(argv[2]) : 0.0;
  const int batch = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::vector<int> seqs = bucket_list(argc > 4 ? argv[4] : "32,64,128");
  const std::string workload = "bert-base";
  const hs::Platform p = hs::load_platform("hetero-server");
  const CacheSearch search{budget, 1};
  ParetoCache cache;
  const auto began = std::chrono::steady_clock::now();
  for (int seq : seqs)
    cache.add_bucket(p, platform_identity("hetero-server"), "t", workload, seq, batch, search);
  const RefineResult refined =
      refine > 0 ? refine_cache(cache, p, "t", CacheRefine{refine, 4, 16, 1.2}, search) : RefineResult{};
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::printf("cache, batch %d, budget %d, refine %.3f: %d fronts searched in %.2f s, %d buckets added:",
              batch, budget, refine, cache.searches, build_s, refined.added);
  for (const CacheBucket& b : cache.tenants[0].buckets)
    std::printf(" %d", b.seq);
  std::printf("; probes:");
  for (int probe : refined.probes)
    std::printf(" %d", probe);
  std::printf("\n");

  // Lookup: 1M requests of shapes 1..128, bucket then least energy within a 20 ms SLO.
  const int n = 1000000;
  double sink = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const int seq = 1 + static_cast<int>((static_cast<unsigned>(i) * 2654435761u) % 128u);
    sink += ParetoCache::pick(cache.bucket("t", seq, batch, false, p, search),
                              PlanObjective::LeastEnergyWithinSlo, 0.02)
                .energy;
  }
  const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("lookup: %.1f ns per request over %d requests (checksum %.3g)\n", per * 1e9, n, sink);

  // Quality: 20 shapes, 33, 38, ..., 123, 127; one the cache has seen (a bucket or a refinement probe)
  // moves up until it is not.
  std::printf("seq  least-latency: latency_err%%  least-energy-within-1.2x: energy_err%%\n");
  double worst_lat = 0.0, worst_energy = 0.0, sum_lat = 0.0, sum_energy = 0.0;
  for (int k = 0; k < 20; ++k) {
    int seq = 33 + 5 * k - (k == 19 ? 1 : 0);
    while (seen(cache.tenants[0], refined.probes, seq, batch))
      ++seq;
    const CacheBucket exact{seq, batch, search_cache_front(p, cache_spec_at(workload, seq, batch), search)};
    const CacheBucket& bucket = cache.bucket("t", seq, batch, false, p, search);
    const PlanLoss loss = plan_loss(bucket, exact, p, workload, 1.2);
    worst_lat = std::max(worst_lat, loss.latency);
    worst_energy = std::max(worst_energy, loss.energy);
    sum_lat += loss.latency;
    sum_energy += loss.energy;
    std::printf("%3d  (bucket %3d)  %+8.2f  %+8.2f\n", seq, bucket.seq, 100 * loss.latency,
                100 * loss.energy);
  }
  std::printf("worst: least-latency latency %+.2f%% (mean %+.2f%%), least-energy-within-1.2x energy %+.2f%% "
              "(mean %+.2f%%)\n",
              100 * worst_lat, 5 * sum_lat, 100 * worst_energy, 5 * sum_energy);
  return 0;
}
