#pragma once
// Service records from the project's own engines, computed once per (tenant, part, batch size, shape) and
// kept: the batch's graph is built by the workload registry, pinned to the tenant's devices, planned by
// its static policy and run on the contention-aware evaluator or the SimGrid replay.
#include "serving/pareto_cache.hpp"
#include "serving/service_source.hpp"
#include "serving/serving_config.hpp"
#include "sim/graph.hpp"
#include "sim/plan.hpp"
#include "sim/platform.hpp"

#include <array>
#include <map>
#include <tuple>

namespace hs {
struct Execution;
}

namespace hs::serving {

// The record of one engine run of `plan`: its makespan, busy seconds, energy above idle and, per device,
// its first op's start and last op's end. A batch holds the devices it used among `placed_on` (all, when
// empty).
ServiceRecord service_record_of(const Execution& e, const Plan& plan, const Platform& platform,
                                const std::vector<std::string>& placed_on);

class EngineServiceTable final : public ServiceSource {
public:
  // `engine` is "evaluator" or "simgrid". Checks every tenant's devices, policy and workload up front
  // (errors name the serving file and the tenant's field), so a bad file fails before any simulation.
  // `platform_id` is the platform description's platform_identity(), which a Pareto cache is checked
  // against (empty: that of the preset named as the platform).
  EngineServiceTable(const Platform& platform, const ServingConfig& config, std::string engine,
                     std::uint64_t seed, std::string platform_id = "");

  const ServiceRecord& record(std::size_t tenant, ServicePart part, int batch, int seq) override;
  int default_tokens(std::size_t tenant) const override { return tokens_[tenant]; }
  double kv_bytes_per_token(std::size_t tenant) const override { return kv_per_token_[tenant]; }
  double kv_transfer_seconds(std::size_t tenant, double bytes) const override;
  int default_seq(std::size_t tenant) const override { return default_seq_[tenant]; }
  std::size_t device_count() const override { return platform_->devices.size(); }
  std::string device_name(std::size_t d) const override { return platform_->devices[d].name; }
  double idle_watts(std::size_t d) const override { return platform_->devices[d].idle_watts(); }
  double link_idle_watts() const override;
  std::string provenance() const override;
  // Wall-clock seconds spent building, planning and running batch graphs.
  double measuring_seconds() const { return measuring_seconds_; }
  std::size_t records() const { return cache_.size(); }
  // Fronts searched during the run by tenants' Pareto caches (re-search), over all cache files.
  int cache_searches() const;
  // Writes the fronts re-searched for new shapes back into their cache files (each file read again, the
  // tenants' new buckets added), so a later run finds them; returns a line per file written or left alone
  // (a cache re-searched for another platform description is not written back).
  std::vector<std::string> save_caches() const;
  // Every record measured, keyed by (tenant, part, batch, seq), for the report.
  const std::map<std::tuple<std::size_t, int, int, int>, ServiceRecord>& cached() const { return cache_; }

  // The devices a tenant's graphs of `part` are pinned to (empty: every device): its placement's, a split
  // tenant's prefill or decode devices, or those its Pareto cache's searches used.
  const std::vector<std::string>& placed_on(std::size_t tenant, ServicePart part) const {
    return placed_[tenant][static_cast<std::size_t>(part)];
  }
  // A split tenant's KV-cache route: the device of its prefill's last op, and its first decode device.
  std::pair<std::size_t, std::size_t> kv_route(std::size_t tenant) const { return kv_route_[tenant]; }

private:
  void pin(Graph& g, std::size_t tenant, const std::vector<std::string>& on) const;
  // The bucket a request of `seq` is padded up to (`seq` itself without buckets; 0 stays 0).
  int bucket_of(std::size_t tenant, int seq) const;
  // The tenant's policy's plan of its graph at `seq`; with `same_as`, that graph must have its structure.
  Plan plan_at(std::size_t tenant, int batch, int seq, int decode, const Graph* same_as,
               const std::vector<std::string>& on) const;
  Plan plan_with(const CostModel& cost, const std::string& policy) const;
  void check_tenant(std::size_t tenant);
  void read_workload(std::size_t tenant);
  void check_split(std::size_t tenant); // a split tenant's records and KV-cache route
  ServiceRecord run_plan(const Plan& plan, const CostModel& cost, const std::vector<std::string>& on) const;
  // The batch's graph at (`seq`, `decode`: -1 the workload's own, 0 its prefill) pinned to `on`, planned
  // and run; a cached tenant's plan comes from its cache.
  ServiceRecord measure(std::size_t tenant, int batch, int seq, int decode,
                        const std::vector<std::string>& on);
  // A Pareto cache tenant: opens its file once (shared by tenants naming the same file) and checks it.
  void open_cache(std::size_t tenant);
  int cache_check_seq(std::size_t tenant) const; // its cache's smallest bucket

  // The batch's plan looked up in its tenant's cache, run at the batch's own shape.
  ServiceRecord measure_cached(std::size_t tenant, int batch, int seq, int decode,
                               const std::vector<std::string>& on);
  std::string cache_key(std::size_t tenant, int decode) const; // the CacheTenant::key() of that part
  std::string spec_of(std::size_t tenant, int batch, int seq, int decode) const;
  const Platform* platform_;
  const ServingConfig* config_;
  std::string engine_;
  std::uint64_t seed_;
  std::vector<int> tokens_; // per tenant: the workload's decode= (0: not a decoder)
  std::vector<std::map<std::string, std::string>> params_; // per tenant: the workload's parameters
  std::vector<std::string> builders_;
  std::vector<char> has_batch_;  // per tenant: the builder takes batch= (a tenant without batching may not)
  std::vector<int> default_seq_; // per tenant: the workload's seq= (a request without a shape has it)
  std::vector<double> kv_per_token_; // per tenant: 2 x layers x hidden x element bytes (0: unknown)
  std::string platform_id_;
  std::map<std::size_t, ParetoCache> caches_; // by tenant (each binds its own to the platform)
  std::vector<std::array<std::vector<std::string>, 3>> placed_; // per tenant and ServicePart
  std::vector<std::pair<std::size_t, std::size_t>> kv_route_;   // per tenant (split tenants only)
  std::map<std::tuple<std::size_t, int, int, int>, ServiceRecord> cache_;
  double measuring_seconds_ = 0.0;
};

} // namespace hs::serving
