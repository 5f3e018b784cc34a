// The Pareto cache's two figures (issue 11, part 2): the cost of a lookup per request (bucket by shape,
// then a plan by objective), and the quality of the bucket's plan run on a request's own shape against a
// full search on that exact shape, over 20 shapes inside the buckets that are not buckets. Quality is
// judged twice: on the contention-aware evaluator (caches and exact fronts searched and picked on its
// values), and in SimGrid (fronts replayed as `heterosim pareto` replays them, picks on replayed values,
// both picks replayed at the exact shape); a third column, the evaluator-valued cache judged in SimGrid,
// shows what picking on evaluator values costs once the replay is the judge.
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Built {
  ParetoCache cache;
  RefineResult refined;
  // A shape the cache has seen: a bucket, or a shape its refinement searched.
  bool seen(int seq, int batch) const {
    return std::count(refined.probes.begin(), refined.probes.end(), seq) > 0 ||
           std::any_of(cache.tenants[0].buckets.begin(), cache.tenants[0].buckets.end(),
                       [&](const CacheBucket& b) { return b.seq == seq && b.batch == batch; });
  }
};

Built build(const hs::Platform& p, const std::string& workload, const std::vector<int>& seqs, int batch,
            const CacheSearch& search, double refine) {
  Built out;
  const auto began = std::chrono::steady_clock::now();
  for (int seq : seqs)
    out.cache.add_bucket(p, platform_identity("hetero-server"), "t", workload, seq, batch, search);
  if (refine > 0) out.refined = refine_cache(out.cache, p, "t", CacheRefine{refine, 4, 16, 1.2}, search);
  std::printf("cache (%s values), batch %d, budget %d, refine %.3f: %d fronts searched in %.2f s, "
              "%d buckets added:",
              search.replay ? "replayed" : "evaluator", batch, search.budget, refine, out.cache.searches,
              seconds_since(began), out.refined.added);
  for (const CacheBucket& b : out.cache.tenants[0].buckets)
    std::printf(" %d", b.seq);
  std::printf("; probes:");
  for (int probe : out.refined.probes)
    std::printf(" %d", probe);
  std::printf("\n");
  return out;
}

// Lookup: 1M requests of shapes 1..128, bucket then least energy within a 20 ms SLO.
void lookup(ParetoCache& cache, const hs::Platform& p, int batch, const CacheSearch& search) {
  const int n = 1000000;
  double sink = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const int seq = 1 + static_cast<int>((static_cast<unsigned>(i) * 2654435761u) % 128u);
    sink += ParetoCache::pick(cache.bucket("t", seq, batch, false, p, search),
                              PlanObjective::LeastEnergyWithinSlo, 0.02)
                .energy;
  }
  std::printf("lookup: %.1f ns per request over %d requests (checksum %.3g)\n", seconds_since(t0) / n * 1e9,
              n, sink);
}

struct Tally {
  double worst_lat = 0.0, worst_energy = 0.0, sum_lat = 0.0, sum_energy = 0.0;
  int worst_lat_seq = 0, worst_energy_seq = 0, n = 0;
  void add(const PlanLoss& l, int seq) {
    if (n == 0 || l.latency > worst_lat) worst_lat = l.latency, worst_lat_seq = seq;
    if (n == 0 || l.energy > worst_energy) worst_energy = l.energy, worst_energy_seq = seq;
    sum_lat += l.latency;
    sum_energy += l.energy;
    ++n;
  }
  void print(const char* what) const {
    std::printf("%-39s least-latency latency %+.2f%% at %d (mean %+.2f%%), least-energy-within-1.2x energy "
                "%+.2f%% at %d (mean %+.2f%%)\n",
                what, 100 * worst_lat, worst_lat_seq, 100 * sum_lat / n, 100 * worst_energy, worst_energy_seq,
                100 * sum_energy / n);
  }
};

} // namespace

int main(int argc, char** argv) {
  const int budget = argc > 1 ? std::atoi(argv[1]) : 200;
  const double refine = argc > 2 ? std::atof(argv[2]) : 0.0;
  const int batch = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::vector<int> seqs = bucket_list(argc > 4 ? argv[4] : "32,64,128");
  const std::string workload = "bert-base";
  const hs::Platform p = hs::load_platform("hetero-server");
  const CacheSearch by_eval{budget, 1, false};
  const CacheSearch by_replay{budget, 1, true};
  Built eval = build(p, workload, seqs, batch, by_eval, refine);
  Built replayed = build(p, workload, seqs, batch, by_replay, refine);
  lookup(replayed.cache, p, batch, by_replay);

  // Quality: 20 shapes, 33, 38, ..., 123, 127; one either cache has seen (a bucket or a refinement probe)
  // moves up until it is not. Loss = cache / exact - 1, latency of the least-latency picks, energy of the
  // least-energy-within-1.2x-the-exact-fastest picks.
  std::printf("seq  bucket(eval,replayed)  evaluator: lat%% energy%%  eval-cache in SimGrid: lat%% energy%%  "
              "replayed: lat%% energy%%\n");
  Tally on_eval, mixed, on_replay;
  for (int k = 0; k < 20; ++k) {
    int seq = 33 + 5 * k - (k == 19 ? 1 : 0);
    while (eval.seen(seq, batch) || replayed.seen(seq, batch))
      ++seq;
    const std::string spec = cache_spec_at(workload, seq, batch);
    const CacheBucket exact_eval{seq, batch, search_cache_front(p, spec, by_eval)};
    const CacheBucket exact_replayed{seq, batch, search_cache_front(p, spec, by_replay)};
    const CacheBucket& be = eval.cache.bucket("t", seq, batch, false, p, by_eval);
    const CacheBucket& br = replayed.cache.bucket("t", seq, batch, false, p, by_replay);
    const PlanLoss le = plan_loss(be, exact_eval, p, workload, 1.2, false);
    const PlanLoss lm = plan_loss(be, exact_replayed, p, workload, 1.2, true);
    const PlanLoss lr = plan_loss(br, exact_replayed, p, workload, 1.2, true);
    on_eval.add(le, seq);
    mixed.add(lm, seq);
    on_replay.add(lr, seq);
    std::printf("%3d  (%3d,%3d)  %+7.2f %+7.2f  %+7.2f %+7.2f  %+7.2f %+7.2f\n", seq, be.seq, br.seq,
                100 * le.latency, 100 * le.energy, 100 * lm.latency, 100 * lm.energy, 100 * lr.latency,
                100 * lr.energy);
  }
  std::printf("worst over %d shapes:\n", on_eval.n);
  on_eval.print("evaluator (cache and exact on it):");
  mixed.print("evaluator-valued cache, in SimGrid:");
  on_replay.print("replayed (cache and exact in SimGrid):");
  return 0;
}
