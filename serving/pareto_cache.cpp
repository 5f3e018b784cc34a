#include "serving/pareto_cache.hpp"

#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/front_report.hpp"
#include "serving/device_pinning.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/key_values.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cstdio>

namespace hs::serving {

std::string cache_spec_at(const std::string& workload, int seq, int batch) {
  std::string spec = workload;
  spec.append(workload.find(':') == std::string::npos ? ":" : ",").append("seq=").append(std::to_string(seq));
  spec.append(",batch=").append(std::to_string(batch));
  return spec;
}

const char* cache_part_name(CachePart p) {
  return p == CachePart::Prefill ? "prefill" : p == CachePart::Decode ? "decode" : "whole";
}

std::string CacheTenant::key() const {
  return part == CachePart::Whole ? name : name + ":" + cache_part_name(part);
}

std::string part_workload(const std::string& workload, CachePart part) {
  if (part != CachePart::Prefill) return workload;
  const auto colon = workload.find(':');
  const std::string name = workload.substr(0, colon);
  auto params = colon == std::string::npos ? std::map<std::string, std::string>{}
                                           : parse_key_values(name, workload.substr(colon + 1));
  params["decode"] = "0";
  std::string spec = name;
  char sep = ':';
  for (const auto& [k, v] : params) {
    spec.append(1, sep).append(k).append("=").append(v);
    sep = ',';
  }
  return spec;
}

std::string platform_identity(const std::string& name_or_path) {
  const std::string text = read_json_file(platform_file(name_or_path)).dump();
  std::uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bits
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::vector<CachedPlan> search_cache_front(const Platform& p, const std::string& spec,
                                           const CacheSearch& search,
                                           const std::vector<std::string>& devices) {
  Graph g = load_workload(spec, search.seed);
  if (const std::string why = pin_to_devices(g, p, devices); !why.empty())
    throw InputError(spec, "devices", why);
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
  if (search.replay) pareto::replay_in_simgrid(problem, report); // one forked SimGrid run per member
  const nlohmann::ordered_json front = pareto::front_json(problem, report);
  std::vector<CachedPlan> out;
  for (std::size_t i = 0; i < report.plans.size(); ++i) {
    CachedPlan c;
    const auto& judged = pareto::final_value(report, i).scores; // replayed when the front was replayed
    c.latency = judged.latency;
    c.energy = judged.energy;
    c.eval_latency = report.plans[i].value.scores.latency;
    c.eval_energy = report.plans[i].value.scores.energy;
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

const CacheTenant* ParetoCache::find_tenant(const std::string& name) const {
  for (const CacheTenant& t : tenants)
    if (t.key() == name) return &t;
  return nullptr;
}

CacheTenant& ParetoCache::tenant_named(const std::string& name) {
  for (CacheTenant& t : tenants)
    if (t.key() == name) return t;
  throw InputError(file, "tenants", "no tenant '" + name + "' in the Pareto cache");
}

namespace {

bool bucket_before(const CacheBucket& x, int seq, int batch) {
  return x.batch != batch ? x.batch < batch : x.seq < seq;
}

} // namespace

void ParetoCache::add_bucket(const Platform& p, const std::string& identity, const std::string& tenant,
                             const std::string& workload, int seq, int batch, const CacheSearch& how) {
  if (platform.empty()) {
    platform = p.name;
    platform_id = identity;
  }
  auto t =
      std::find_if(tenants.begin(), tenants.end(), [&](const CacheTenant& x) { return x.key() == tenant; });
  if (t == tenants.end()) {
    add_tenant(tenant, CachePart::Whole, workload, {});
    t = tenants.end() - 1;
  }
  CacheBucket b{seq, batch, search_cache_front(p, cache_spec_at(t->workload, seq, batch), how, t->devices)};
  ++searches;
  if (b.front.empty())
    throw InputError(file, tenant,
                     "the search found no feasible plan at seq " + std::to_string(seq) + ", batch " +
                         std::to_string(batch));
  insert_bucket(tenant, std::move(b));
}

void ParetoCache::add_tenant(const std::string& name, CachePart part, const std::string& workload,
                             std::vector<std::string> devices) {
  CacheTenant t{name, part, workload, std::move(devices), {}};
  if (find_tenant(t.key())) throw InputError(file, "tenants", "tenant '" + t.key() + "' is there already");
  tenants.push_back(std::move(t));
}

void ParetoCache::insert_bucket(const std::string& tenant, CacheBucket b) {
  CacheTenant& t = tenant_named(tenant);
  auto at = std::lower_bound(t.buckets.begin(), t.buckets.end(), 0,
                             [&](const CacheBucket& x, int) { return bucket_before(x, b.seq, b.batch); });
  if (at != t.buckets.end() && at->seq == b.seq && at->batch == b.batch)
    *at = std::move(b);
  else
    t.buckets.insert(at, std::move(b));
}

void ParetoCache::bind_platform(const Platform& p, const std::string& identity, bool re_search) {
  if (platform == p.name && platform_id == identity) return;
  if (!re_search)
    throw InputError(file, "platform_id",
                     "the cache was built for platform '" + platform + "' (description " + platform_id +
                         "), not '" + p.name + "' (description " + identity +
                         "); rebuild it with `heterosim serve-cache`, or turn re_search on");
  platform = p.name;
  platform_id = identity;
  for (CacheTenant& t : tenants)
    for (CacheBucket& b : t.buckets)
      b.front.clear(); // searched again on `p` when first needed
}

const CacheBucket& ParetoCache::bucket(const std::string& tenant, int seq, int batch, bool re_search,
                                       const Platform& p, const CacheSearch& how) {
  // Plans name devices of the platform they were searched on: another platform needs another cache.
  if (!platform.empty() && platform != p.name)
    throw InputError(file, "platform",
                     "the cache was built for platform '" + platform + "', not '" + p.name + "'");
  CacheTenant& t = tenant_named(tenant);
  // The smallest cached batch size at or above `batch`, then its smallest seq at or above `seq`.
  auto size = std::find_if(t.buckets.begin(), t.buckets.end(),
                           [&](const CacheBucket& x) { return x.batch >= batch; });
  auto at = size == t.buckets.end() ? size : std::find_if(size, t.buckets.end(), [&](const CacheBucket& x) {
    return x.batch != size->batch || x.seq >= seq;
  });
  if (at != t.buckets.end() && at->batch == size->batch) {
    if (at->front.empty()) { // the platform changed: this bucket is searched again, once
      at->front = search_cache_front(p, cache_spec_at(t.workload, at->seq, at->batch), how, t.devices);
      ++searches;
      if (at->front.empty())
        throw InputError(file, tenant, "the search found no feasible plan at seq " + std::to_string(at->seq));
    }
    return *at;
  }
  if (!re_search)
    throw InputError(file, "tenant '" + tenant + "'",
                     "shape seq=" + std::to_string(seq) + " batch=" + std::to_string(batch) +
                         " is above every bucket (largest " +
                         (t.buckets.empty() ? std::string("none")
                                            : "seq " + std::to_string(t.buckets.back().seq) + " at batch " +
                                                  std::to_string(t.buckets.back().batch)) +
                         ") and re-search is off");
  add_bucket(p, platform_id, tenant, t.workload, seq, batch, how); // incremental: it becomes a bucket
  return bucket(tenant, seq, batch, false, p, how);
}

} // namespace hs::serving
