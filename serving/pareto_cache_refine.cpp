#include "serving/pareto_cache_refine.hpp"

#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/execution.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <set>
#include <utility>

namespace hs::serving {

Replayed replay_cached(const CachedPlan& plan, const Platform& p, const std::string& workload, int seq,
                       int batch, bool simgrid) {
  const Graph g = load_workload(cache_spec_at(workload, seq, batch));
  const CostModel cost(g, p);
  const auto stored = cached_plan_on(plan, cost);
  const Execution e =
      simgrid ? run_simgrid(stored.plan, *stored.cost) : run_contention(stored.plan, *stored.cost);
  return {e.makespan, total_energy(e)};
}

PlanLoss plan_loss(const CacheBucket& bucket, const CacheBucket& exact, const Platform& p,
                   const std::string& workload, double limit_factor, bool simgrid) {
  const double limit = limit_factor * exact.front.front().latency;
  const auto loss = [&](PlanObjective o) {
    const Replayed c =
        replay_cached(ParetoCache::pick(bucket, o, limit), p, workload, exact.seq, exact.batch, simgrid);
    const Replayed e =
        replay_cached(ParetoCache::pick(exact, o, limit), p, workload, exact.seq, exact.batch, simgrid);
    return std::make_pair(c.latency / e.latency - 1, c.energy / e.energy - 1);
  };
  return {loss(PlanObjective::LeastLatency).first, loss(PlanObjective::LeastEnergyWithinSlo).second};
}

RefineResult refine_cache(ParetoCache& cache, const Platform& p, const std::string& tenant,
                          const CacheRefine& refine, const CacheSearch& search) {
  const CacheTenant* t = cache.find_tenant(tenant);
  if (!t) throw InputError(cache.file, "tenants", "no tenant '" + tenant + "' in the Pareto cache");
  const std::string workload = t->workload;
  const std::vector<std::string> devices = t->devices;
  std::set<int> batches;
  for (const CacheBucket& b : t->buckets)
    batches.insert(b.batch);
  RefineResult out;
  for (int batch : batches) {
    std::vector<std::pair<int, int>> todo; // (lower, upper) seq of adjacent buckets; 0: below the first
    int lower = 0;
    for (const CacheBucket& b : cache.find_tenant(tenant)->buckets)
      if (b.batch == batch) todo.emplace_back(std::exchange(lower, b.seq), b.seq);
    int added_here = 0;
    while (!todo.empty() && added_here < refine.max_added) {
      const auto [lo, hi] = todo.back();
      todo.pop_back();
      if (hi - lo < refine.min_gap) continue;
      const CacheBucket upper = cache.bucket(tenant, hi, batch, false, p, search);
      const int probe = lo + 1;
      const CacheBucket at_probe{
          probe, batch, search_cache_front(p, cache_spec_at(workload, probe, batch), search, devices)};
      ++cache.searches;
      out.probes.push_back(probe);
      const PlanLoss loss = plan_loss(upper, at_probe, p, workload, refine.limit_factor, search.replay);
      if (loss.latency <= refine.tolerance && loss.energy <= refine.tolerance) continue;
      const int mid = lo + (hi - lo) / 2;
      cache.add_bucket(p, cache.platform_id, tenant, workload, mid, batch, search);
      ++out.added;
      ++added_here;
      todo.emplace_back(mid, hi);
      todo.emplace_back(lo, mid);
    }
  }
  return out;
}

} // namespace hs::serving
