// The service records of a tenant whose placement is a Pareto cache: each batch's plan is looked up by its
// shape and size in the cache's fronts (serving/pareto_cache.hpp) and run at the batch's own shape.
#include "policies/pareto/stored_plan.hpp"
#include "serving/service_table.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/key_values.hpp"
#include "workloads/workload_registry.hpp"

namespace hs::serving {
namespace {

// The builder and parameters of a spec, without the seq= and batch= a bucket sets.
std::pair<std::string, std::map<std::string, std::string>> shape_free(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  auto params = colon == std::string::npos ? std::map<std::string, std::string>{}
                                           : parse_key_values(name, spec.substr(colon + 1));
  params.erase("seq");
  params.erase("batch");
  return {name, params};
}

} // namespace

std::string EngineServiceTable::cache_key(std::size_t tenant, int decode) const {
  const std::string& name = config_->tenants[tenant].name;
  return decode < 0 ? name
                    : name + ":" + cache_part_name(decode == 0 ? CachePart::Prefill : CachePart::Decode);
}

// A decoder served by continuous batching takes its prefill and decode-step plans from the cache's
// "prefill" and "decode" parts of its name; any other tenant its whole-request plans from the part of its
// name alone. Each part's devices (those its searches used) are where its graphs run.
void EngineServiceTable::open_cache(std::size_t i) {
  const TenantSpec& t = config_->tenants[i];
  if (platform_id_.empty()) platform_id_ = platform_identity(platform_->name);
  ParetoCache c = ParetoCache::read(t.cache);
  const bool parts = t.batching.mode == BatchingMode::Continuous;
  for (const int decode : parts ? std::vector<int>{0, tokens_[i]} : std::vector<int>{-1}) {
    const std::string key = cache_key(i, decode);
    const CacheTenant* ct = c.find_tenant(key);
    if (!ct) {
      std::string names;
      for (const CacheTenant& x : c.tenants)
        names.append(names.empty() ? "" : ", ").append(x.key());
      throw InputError(t.cache, "tenants",
                       "no tenant '" + key + "' (the serving file's tenants[" + std::to_string(i) + "]" +
                           (parts ? ", continuous batching: built with serve-cache --continuous" : "") +
                           "); it holds: " + (names.empty() ? std::string("none") : names));
    }
    const std::string wanted = part_workload(t.workload, decode == 0 ? CachePart::Prefill : CachePart::Whole);
    if (shape_free(ct->workload) != shape_free(wanted))
      throw InputError(config_->file, "tenants[" + std::to_string(i) + "].workload",
                       "'" + wanted + "' is not the workload " + t.cache + " holds for '" + key + "' ('" +
                           ct->workload + "', seq= and batch= aside)");
    for (const ServicePart p : decode < 0    ? std::vector{ServicePart::Whole}
                               : decode == 0 ? std::vector{ServicePart::Prefill}
                                             : std::vector{ServicePart::DecodeStep})
      placed_[i][static_cast<std::size_t>(p)] = ct->devices;
  }
  c.bind_platform(*platform_, platform_id_, t.re_search);
  caches_.insert_or_assign(i, std::move(c));
}

ServiceRecord EngineServiceTable::measure_cached(std::size_t tenant, int batch, int seq, int decode,
                                                 const std::vector<std::string>& on) {
  const TenantSpec& t = config_->tenants[tenant];
  ParetoCache& c = caches_.at(tenant);
  const int shape = seq > 0 ? seq : default_seq_[tenant];
  const std::string key = cache_key(tenant, decode);
  const CacheBucket& b = c.bucket(key, shape, batch, t.re_search, *platform_, c.search);
  const double limit = t.cache_latency_limit > 0 ? t.cache_latency_limit : t.slo;
  const CachedPlan& chosen = ParetoCache::pick(
      b, t.cache_least_latency ? PlanObjective::LeastLatency : PlanObjective::LeastEnergyWithinSlo, limit);
  const Graph g = load_workload(spec_of(tenant, batch, shape, decode), seed_);
  const CostModel cost(g, *platform_);
  try {
    const pareto::StoredPlan stored = cached_plan_on(chosen, cost);
    validate_plan(stored.plan, *stored.cost);
    ServiceRecord r = run_plan(stored.plan, *stored.cost, on);
    r.cache_seq = b.seq;
    r.cache_batch = b.batch;
    r.cache_plan = static_cast<int>(&chosen - b.front.data());
    return r;
  } catch (const InputError& e) {
    throw InputError(t.cache, "tenant '" + key + "'",
                     "the plan of bucket seq=" + std::to_string(b.seq) + " batch=" + std::to_string(b.batch) +
                         " does not fit " + g.name + ": " + e.what());
  }
}

std::vector<std::string> EngineServiceTable::save_caches() const {
  std::map<std::string, std::vector<std::size_t>> by_file;
  for (const auto& [tenant, c] : caches_)
    if (c.searches > 0) by_file[config_->tenants[tenant].cache].push_back(tenant);
  std::vector<std::string> notes;
  for (const auto& [file, users] : by_file) {
    ParetoCache on_disk = ParetoCache::read(file);
    bool other_platform = false;
    for (const std::size_t i : users) {
      const ParetoCache& c = caches_.at(i);
      other_platform = other_platform || c.platform_id != on_disk.platform_id;
      for (const CacheTenant& t : c.tenants)
        if (t.name == config_->tenants[i].name && !other_platform)
          for (const CacheBucket& b : t.buckets)
            on_disk.insert_bucket(t.key(), b); // its own parts only: another tenant's may be newer
    }
    if (other_platform) {
      notes.push_back(file +
                      " not written back: its fronts were re-searched for another platform description "
                      "(build a cache for it with serve-cache)");
      continue;
    }
    on_disk.write(file, true);
    notes.push_back("wrote the re-searched fronts back to " + file);
  }
  return notes;
}

int EngineServiceTable::cache_searches() const {
  int n = 0;
  for (const auto& [tenant, c] : caches_)
    n += c.searches;
  return n;
}

} // namespace hs::serving
