#include "serving/pareto_cache.hpp"

#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/front_report.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>

namespace hs::serving {

std::string cache_spec_at(const std::string& workload, int seq) {
  std::string spec = workload;
  spec.append(workload.find(':') == std::string::npos ? ":" : ",").append("seq=").append(std::to_string(seq));
  return spec;
}

std::vector<CachedPlan> search_cache_front(const Platform& p, const std::string& spec,
                                           const CacheSearch& search) {
  const Graph g = load_workload(spec, search.seed);
  const CostModel cost(g, p);
  pareto::ProblemOptions po;
  po.objectives = {pareto::Objective::Latency, pareto::Objective::Energy};
  const pareto::ParetoProblem problem(cost, po);
  const auto baselines = problem.baselines(search.seed);
  pareto::SearchState state(problem, search.budget);
  pareto::run_archive_search(state, baselines, search.seed);
  pareto::FrontReport report = pareto::make_front_report(state);
  report.platform = p.name;
  report.workload = g.name;
  // The evaluator's values: the serving records come from the same engine (a replay would fork per plan).
  const nlohmann::ordered_json front = pareto::front_json(problem, report);
  std::vector<CachedPlan> out;
  for (std::size_t i = 0; i < report.plans.size(); ++i) {
    CachedPlan c;
    c.latency = report.plans[i].value.scores.latency;
    c.energy = report.plans[i].value.scores.energy;
    c.entry = nlohmann::json::parse(front["plans"][i].dump());
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CachedPlan& a, const CachedPlan& b) { return a.latency < b.latency; });
  return out;
}

pareto::StoredPlan cached_plan_on(const CachedPlan& plan, const CostModel& cost) {
  return pareto::stored_plan_from_entry(JsonNode(plan.entry, "pareto cache", "plan"), cost);
}

const CachedPlan& ParetoCache::pick(const CacheBucket& b, PlanObjective objective, double latency_limit) {
  const CachedPlan* best = &b.front.front(); // fastest first
  if (objective == PlanObjective::LeastLatency) return *best;
  for (const CachedPlan& c : b.front)
    if (c.latency <= latency_limit && (best->latency > latency_limit || c.energy < best->energy)) best = &c;
  return *best;
}

CacheTenant& ParetoCache::tenant_named(const std::string& name) {
  for (CacheTenant& t : tenants)
    if (t.name == name) return t;
  throw InputError(file, "tenants", "no tenant '" + name + "' in the Pareto cache");
}

void ParetoCache::add_bucket(const Platform& p, const std::string& tenant, const std::string& workload,
                             int seq, const CacheSearch& search) {
  if (platform.empty()) platform = p.name;
  auto t =
      std::find_if(tenants.begin(), tenants.end(), [&](const CacheTenant& x) { return x.name == tenant; });
  if (t == tenants.end()) {
    tenants.push_back(CacheTenant{tenant, workload, {}});
    t = tenants.end() - 1;
  }
  CacheBucket b{seq, search_cache_front(p, cache_spec_at(t->workload, seq), search)};
  if (b.front.empty())
    throw InputError(file, tenant, "the search found no feasible plan at seq " + std::to_string(seq));
  auto at = std::lower_bound(t->buckets.begin(), t->buckets.end(), seq,
                             [](const CacheBucket& x, int s) { return x.seq < s; });
  if (at != t->buckets.end() && at->seq == seq)
    *at = std::move(b);
  else
    t->buckets.insert(at, std::move(b));
}

const CacheBucket& ParetoCache::bucket(const std::string& tenant, int seq, bool re_search, const Platform& p,
                                       const CacheSearch& search) {
  // Plans name devices of the platform they were searched on: another platform needs another cache.
  if (!platform.empty() && platform != p.name)
    throw InputError(file, "platform",
                     "the cache was built for platform '" + platform + "', not '" + p.name + "'");
  CacheTenant& t = tenant_named(tenant);
  auto at = std::lower_bound(t.buckets.begin(), t.buckets.end(), seq,
                             [](const CacheBucket& x, int s) { return x.seq < s; });
  if (at != t.buckets.end()) return *at;
  if (!re_search)
    throw InputError(file, "tenant '" + tenant + "'",
                     "shape seq=" + std::to_string(seq) + " is above every bucket (largest " +
                         (t.buckets.empty() ? std::string("none") : std::to_string(t.buckets.back().seq)) +
                         ") and re-search is off");
  add_bucket(p, tenant, t.workload, seq, search); // incremental: this shape becomes a bucket
  return bucket(tenant, seq, false, p, search);
}

} // namespace hs::serving
