#pragma once
// Finer buckets where a front changes with the shape (issue 11: the cache's plan within 5% of a full
// search at the exact shape). A bucket's plans were searched at its own shape; a shape far below it may
// have another fastest plan. Refinement probes the midpoint between buckets with a full search and adds
// it as a bucket where the upper bucket's picks lose more than a tolerance there.
#include "serving/pareto_cache.hpp"

namespace hs::serving {

struct Replayed {
  double latency = 0.0; // makespan
  double energy = 0.0;  // every device's and link's joules over the makespan (idle power included)
};
// `plan` run on the graph of (`seq`, `batch`) of `workload`: on the contention-aware evaluator, or with
// `simgrid` replayed in SimGrid (run_simgrid: a forked child, SimGrid keeps one engine per process).
Replayed replay_cached(const CachedPlan& plan, const Platform& p, const std::string& workload, int seq,
                       int batch, bool simgrid = false);

// What a bucket's front loses at a shape against that shape's own front, both picks run there (in SimGrid
// with `simgrid`, else on the evaluator): least latency (its latency) and least energy within
// `limit_factor` x the exact front's fastest (its energy), as fractions (0.05 = 5% worse). Each front picks
// on the values it stores (replayed ones when it was searched with CacheSearch::replay).
struct PlanLoss {
  double latency = 0.0;
  double energy = 0.0;
};
PlanLoss plan_loss(const CacheBucket& bucket, const CacheBucket& exact, const Platform& p,
                   const std::string& workload, double limit_factor, bool simgrid = false);

struct CacheRefine {
  double tolerance = 0.05; // largest loss accepted at a probe
  int min_gap = 4;         // buckets closer than this are not split
  int max_added = 16;      // per batch size
  double limit_factor = 1.2;
};

struct RefineResult {
  int added = 0;
  std::vector<int> probes; // shapes searched to decide (not buckets unless also added)
};

// For each batch size of `tenant` and each pair of adjacent buckets (and 0 and the first), probes the
// shape just above the lower one, the one farthest below the upper bucket that serves it (the loss grows
// with that distance: a bucket's fastest plan at 64 was 8% slow at 33 and within 0.6% from 53 up). When
// the upper bucket's plan_loss there (in SimGrid when `search.replay`) exceeds the tolerance, the midpoint is
// searched and becomes a bucket, and both halves are probed again.
RefineResult refine_cache(ParetoCache& cache, const Platform& p, const std::string& tenant,
                          const CacheRefine& refine, const CacheSearch& search);

} // namespace hs::serving
