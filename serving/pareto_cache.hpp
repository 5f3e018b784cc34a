#pragma once
// The Pareto cache (issue 11, part 2): per tenant, shape bucket and batch size, a front of plans from the
// project's Pareto search (policies/pareto), kept in one versioned file so that serving picks a plan per
// batch without searching. A batch's shape (its seq) and size pick the bucket: the smallest cached batch
// size at or above it, then at that size the smallest seq at or above it; an objective picks a plan of
// that bucket's front; the plan (rewrites, placement and order, by op name) is replayed on the graph of
// the batch's own shape and size, so op times follow the real shape (the two-level idea of
// docs/serving.md, with a front per bucket instead of one plan).
#include "policies/pareto/stored_plan.hpp"
#include "sim/platform.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hs::serving {

struct CachedPlan {
  // At the bucket's shape, the values the front is defined on and picks use: the SimGrid replay's when the
  // front was replayed (CacheSearch::replay), else the search's evaluator's.
  double latency = 0.0;
  double energy = 0.0;
  double eval_latency = 0.0; // the search's evaluator (the same as latency when not replayed)
  double eval_energy = 0.0;
  nlohmann::json entry; // the front's plan entry (front.json "plans" member: rewrites, placement, order)
};

struct CacheBucket {
  int seq = 0;   // covers shapes above the next smaller bucket of its batch size, up to this one
  int batch = 1; // covers batch sizes above the next smaller cached size, up to this one
  // By latency, fastest first. Empty: searched when first looked up (the platform changed, re-search on).
  std::vector<CachedPlan> front;
};

// What a tenant's fronts are plans of: whole requests, or a decoder's prefill (decode=0) or its graph of
// prefill and D decode steps, from which continuous batching's mean step is taken (service_table.hpp).
enum class CachePart { Whole, Prefill, Decode };
const char* cache_part_name(CachePart p); // "whole", "prefill", "decode"

struct CacheTenant {
  std::string name;
  CachePart part = CachePart::Whole;
  std::string workload;             // a builder spec without seq= and batch= (the bucket sets them)
  std::vector<std::string> devices; // the devices its searches were restricted to; empty: every device
  std::vector<CacheBucket> buckets; // by (batch, seq)
  // How the cache's functions name it: the name, then ":prefill" or ":decode" for a decoder's part.
  std::string key() const;
};

enum class PlanObjective {
  LeastLatency,
  LeastEnergyWithinSlo, // the least energy among plans within the latency limit; none: the fastest
};

struct CacheSearch {
  int budget = 200; // evaluations per front
  std::uint64_t seed = 1;
  // Replay each front member in SimGrid (as `heterosim pareto` does, pareto::replay_in_simgrid): the front
  // is then defined on replayed values, so a pick agrees with a full search judged on the replay.
  bool replay = false;
};

class ParetoCache {
public:
  static constexpr const char* kFormat = "heterosim-pareto-cache";
  // 2: fronts per batch size and the platform's identity; 3: replayed and evaluator values per plan;
  // 4: a decoder's prefill and decode parts, and searches restricted to a tenant's devices
  static constexpr int kVersion = 4;

  // Refuses another format or version, and a malformed file, with an InputError naming the file.
  static ParetoCache read(const std::string& path);
  nlohmann::json to_json() const;
  void write(const std::string& path, bool force) const;

  // Adds a tenant (or a decoder's part of one) whose searches use only `devices` (all when empty); a second
  // of the same key is an InputError naming the file.
  void add_tenant(const std::string& name, CachePart part, const std::string& workload,
                  std::vector<std::string> devices);
  // Searches a front for `tenant` (a CacheTenant::key()) at (`seq`, `batch`) on its devices and adds (or
  // replaces) that bucket, adding the tenant (whole, every device) if new. The first bucket records `p` and
  // `identity` (platform_identity()) as the cache's platform.
  void add_bucket(const Platform& p, const std::string& identity, const std::string& tenant,
                  const std::string& workload, int seq, int batch, const CacheSearch& how);
  // Adds (or replaces) a bucket of an existing tenant whose front was searched elsewhere, in order.
  void insert_bucket(const std::string& tenant, CacheBucket b);
  // Before lookups on `p`: a cache built for another platform description (identity) is an InputError
  // naming the file and both platforms, unless `re_search`: then every front is dropped, and each is
  // searched again on `p` when first looked up (the buckets stay).
  void bind_platform(const Platform& p, const std::string& identity, bool re_search);
  // The bucket covering (`seq`, `batch`): with `re_search` a shape or size above every bucket is searched
  // once and added; without, it is an InputError naming the tenant and the shape.
  const CacheBucket& bucket(const std::string& tenant, int seq, int batch, bool re_search, const Platform& p,
                            const CacheSearch& search);
  static const CachedPlan& pick(const CacheBucket& b, PlanObjective objective, double latency_limit);
  const CacheTenant* find_tenant(const std::string& name) const;

  std::string platform;    // the platform's name
  std::string platform_id; // platform_identity() of the description the fronts were searched on
  std::string file;        // where it was read from (for errors)
  std::vector<CacheTenant> tenants;
  CacheSearch search; // how its fronts were searched; a re-search uses the same
  int searches = 0;   // fronts searched by this object (built, re-searched)

private:
  CacheTenant& tenant_named(const std::string& name);
};

// A platform description's identity: a hash of its file's JSON (parsed, so layout and key order do not
// count), as 16 hex digits. Plans name devices and were searched on their speeds: another description
// needs another cache.
std::string platform_identity(const std::string& name_or_path);
// The workload spec of a tenant's graph at (`seq`, `batch`) (its spec with seq= and batch= appended).
std::string cache_spec_at(const std::string& workload, int seq, int batch);
// A decoder's workload spec for a part: decode=0 for the prefill, as given for the others.
std::string part_workload(const std::string& workload, CachePart part);
// A front of `spec` on `p` from the archive search (latency and energy), fastest first; with `search.replay`
// replayed in SimGrid and defined on replayed values (members the replay shows dominated are dropped).
// The search places ops on `devices` only (every device when empty).
std::vector<CachedPlan> search_cache_front(const Platform& p, const std::string& spec,
                                           const CacheSearch& search,
                                           const std::vector<std::string>& devices = {});
// A cached plan on the cost model of the request's own shape (its graph must have the bucket's op names).
pareto::StoredPlan cached_plan_on(const CachedPlan& plan, const CostModel& cost);

} // namespace hs::serving
