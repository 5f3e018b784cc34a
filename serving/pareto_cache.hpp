#pragma once
// The Pareto cache (issue 11, part 2): per tenant and shape bucket, a front of plans from the project's
// Pareto search (policies/pareto), kept in one versioned file so that serving picks a plan per request
// without searching. A request's shape (its seq) picks the smallest bucket at or above it; an objective
// picks a plan of that bucket's front; the plan (rewrites, placement and order, by op name) is replayed
// on the graph of the request's own shape, so op times follow the real shape (the two-level idea of
// docs/serving.md, with a front per bucket instead of one plan).
#include "policies/pareto/stored_plan.hpp"
#include "sim/platform.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hs::serving {

struct CachedPlan {
  double latency = 0.0; // the search's evaluator, at the bucket's shape
  double energy = 0.0;
  nlohmann::json entry; // the front's plan entry (front.json "plans" member: rewrites, placement, order)
};

struct CacheBucket {
  int seq = 0;                   // covers shapes above the next smaller bucket, up to this one
  std::vector<CachedPlan> front; // by latency, fastest first
};

struct CacheTenant {
  std::string name;
  std::string workload;             // a builder spec without seq= (the bucket sets it)
  std::vector<CacheBucket> buckets; // by seq
};

enum class PlanObjective {
  LeastLatency,
  LeastEnergyWithinSlo, // the least energy among plans within the latency limit; none: the fastest
};

struct CacheSearch {
  int budget = 200; // evaluations per front
  std::uint64_t seed = 1;
};

class ParetoCache {
public:
  static constexpr const char* kFormat = "heterosim-pareto-cache";
  static constexpr int kVersion = 1;

  // Refuses another format or version, and a malformed file, with an InputError naming the file.
  static ParetoCache read(const std::string& path);
  nlohmann::json to_json() const;
  void write(const std::string& path, bool force) const;

  // Searches a front for `tenant` at `seq` and adds (or replaces) that bucket, adding the tenant if new.
  void add_bucket(const Platform& p, const std::string& tenant, const std::string& workload, int seq,
                  const CacheSearch& search);
  // The bucket covering `seq`: with `re_search` a shape above every bucket is searched once and added;
  // without, it is an InputError naming the tenant and the shape.
  const CacheBucket& bucket(const std::string& tenant, int seq, bool re_search, const Platform& p,
                            const CacheSearch& search);
  static const CachedPlan& pick(const CacheBucket& b, PlanObjective objective, double latency_limit);

  std::string platform;
  std::string file; // where it was read from (for errors)
  std::vector<CacheTenant> tenants;

private:
  CacheTenant& tenant_named(const std::string& name);
};

// The workload spec of a tenant's graph at `seq` (its spec with seq= appended).
std::string cache_spec_at(const std::string& workload, int seq);
// A front of `spec` on `p` from the archive search (latency and energy, evaluator values), fastest first.
std::vector<CachedPlan> search_cache_front(const Platform& p, const std::string& spec,
                                           const CacheSearch& search);
// A cached plan on the cost model of the request's own shape (its graph must have the bucket's op names).
pareto::StoredPlan cached_plan_on(const CachedPlan& plan, const CostModel& cost);

} // namespace hs::serving
