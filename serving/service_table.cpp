#include "serving/service_table.hpp"

#include "policies/pareto/stored_plan.hpp"
#include "policies/policy.hpp"
#include "serving/device_pinning.hpp"
#include "sim/contention_engine.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/key_values.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <chrono>

namespace hs::serving {
namespace {

std::string tenant_place(std::size_t i, const std::string& field) {
  return "tenants[" + std::to_string(i) + "]." + field;
}

// The builder's own default for `key` ("" when it has no such parameter).
std::string builder_default(const WorkloadBuilder& b, const std::string& key, bool& known) {
  for (const auto& p : b.parameters)
    if (p.key == key) {
      known = true;
      return p.value;
    }
  known = false;
  return "";
}

// A decoder's KV cache per token of context: a key and a value vector of `hidden` elements in each layer
// (the builder's architecture), at the workload's precision (fp32 unless given). 0 without an architecture.
double kv_bytes_per_token_of(const WorkloadBuilder& b, const std::map<std::string, std::string>& params) {
  const auto layers = b.architecture.find("layers"), hidden = b.architecture.find("hidden");
  if (layers == b.architecture.end() || hidden == b.architecture.end()) return 0.0;
  const auto p = params.find("precision");
  const std::string precision = p == params.end() ? "fp32" : p->second;
  const double element = precision == "int8" ? 1.0 : precision == "fp32" ? 4.0 : 2.0; // fp16, bf16: 2
  return 2.0 * layers->second * hidden->second * element;
}

} // namespace

// An op none of the devices runs is an error naming the tenant's placement (running it elsewhere would use
// a device the tenant was not given).
void EngineServiceTable::pin(Graph& g, std::size_t tenant, const std::vector<std::string>& on) const {
  const TenantSpec& t = config_->tenants[tenant];
  if (const std::string why = pin_to_devices(g, *platform_, on); !why.empty())
    throw InputError(config_->file,
                     tenant_place(tenant, t.prefill_devices.empty() ? "placement.devices"
                                          : on == t.prefill_devices ? "placement.prefill_devices"
                                                                    : "placement.decode_devices"),
                     why);
}

EngineServiceTable::EngineServiceTable(const Platform& platform, const ServingConfig& config,
                                       std::string engine, std::uint64_t seed, std::string platform_id)
    : platform_(&platform), config_(&config), engine_(std::move(engine)), seed_(seed),
      platform_id_(std::move(platform_id)) {
  for (std::size_t i = 0; i < config.tenants.size(); ++i)
    check_tenant(i);
}

// The workload's builder and parameters, and whether it can be batched, shaped and decoded as asked.
void EngineServiceTable::read_workload(std::size_t i) {
  const TenantSpec& t = config_->tenants[i];
  const auto colon = t.workload.find(':');
  const std::string name = t.workload.substr(0, colon);
  const WorkloadBuilder* b = workload_builders().find(name);
  if (!b)
    throw InputError(config_->file, tenant_place(i, "workload"),
                     "'" + name +
                         "' is not a workload builder (see `heterosim workloads`): the batcher builds "
                         "each batch size");
  bool has_batch = false, has_seq = false, has_decode = false;
  builder_default(*b, "batch", has_batch);
  const std::string seq_default = builder_default(*b, "seq", has_seq);
  const std::string decode_default = builder_default(*b, "decode", has_decode);
  const auto need = [&](bool known, const char* key, const std::string& why) {
    if (!known)
      throw InputError(config_->file, tenant_place(i, "workload"),
                       "'" + name + "' has no " + key + "= parameter, " + why);
  };
  need(has_batch || t.batching.mode == BatchingMode::None, "batch", "which batching needs");
  if (!t.seq_buckets.empty()) need(has_seq, "seq", "which seq_buckets need");
  if (!t.cache.empty()) need(has_seq && has_batch, has_seq ? "batch" : "seq", "which a Pareto cache needs");
  builders_.push_back(name);
  has_batch_.push_back(has_batch);
  params_.push_back(colon == std::string::npos ? std::map<std::string, std::string>{}
                                               : parse_key_values(name, t.workload.substr(colon + 1)));
  const auto given_seq = params_.back().find("seq");
  default_seq_.push_back(
      has_seq ? std::atoi((given_seq != params_.back().end() ? given_seq->second : seq_default).c_str()) : 0);
  const auto given = params_.back().find("decode");
  // A bad decode= is left for the builder to refuse with its own message.
  tokens_.push_back(
      has_decode ? std::atoi((given != params_.back().end() ? given->second : decode_default).c_str()) : 0);
  kv_per_token_.push_back(kv_bytes_per_token_of(*b, params_.back()));
  if (t.batching.kv_memory > 0 && kv_per_token_.back() <= 0)
    throw InputError(config_->file, tenant_place(i, "batching.kv_memory"),
                     "'" + name + "' states no layers and hidden size, so its KV cache is unknown");
  if (t.batching.mode == BatchingMode::Continuous && tokens_.back() < 1)
    throw InputError(
        config_->file, tenant_place(i, "batching.mode"),
        "continuous batching needs a decoder that generates tokens (a workload with decode= above 0)");
}

void EngineServiceTable::check_tenant(std::size_t i) {
  const TenantSpec& t = config_->tenants[i];
  for (const auto& [list, field] : {std::pair{&t.devices, "placement.devices"},
                                    std::pair{&t.prefill_devices, "placement.prefill_devices"},
                                    std::pair{&t.decode_devices, "placement.decode_devices"}})
    for (const auto& d : *list)
      if (!platform_->find_device(d))
        throw InputError(config_->file, tenant_place(i, field),
                         "no device '" + d + "' on platform " + platform_->name);
  const bool split = !t.prefill_devices.empty();
  placed_.push_back({split ? t.prefill_devices : t.devices, split ? t.prefill_devices : t.devices,
                     split ? t.decode_devices : t.devices});
  kv_route_.emplace_back(0, 0);
  try {
    if (!policy_by_name(t.policy).plans_ahead())
      throw InputError(config_->file, tenant_place(i, "placement.policy"),
                       "'" + t.policy +
                           "' only decides at run time; a batch's service time needs a plan made "
                           "ahead (a static or hybrid policy, see `heterosim policies`)");
  } catch (const std::invalid_argument& e) {
    throw InputError(config_->file, tenant_place(i, "placement.policy"), e.what());
  }
  read_workload(i);
  if (!t.cache.empty()) open_cache(i);
  try {
    // A bad workload parameter fails now, not mid-run (a cached tenant's at its smallest bucket: its
    // workload's own shape may be above every bucket, which only a request of that shape makes an error).
    // A split tenant and a cached decoder have no whole-request graph to check: their parts are.
    const bool parts = split || (!t.cache.empty() && t.batching.mode == BatchingMode::Continuous);
    record(i, parts ? ServicePart::DecodeStep : ServicePart::Whole, 1,
           t.cache.empty() ? 0 : cache_check_seq(i));
    if (split) check_split(i);
  } catch (const InputError& e) {
    // Errors of the serving file's own fields, or of a stored plan's file, already name their place.
    if (e.file() == config_->file || e.file() == t.stored_plan || e.file() == t.cache) throw;
    throw InputError(config_->file, tenant_place(i, "workload"), e.what());
  }
}

std::string EngineServiceTable::spec_of(std::size_t tenant, int batch, int seq, int decode) const {
  std::map<std::string, std::string> p = params_[tenant];
  if (has_batch_[tenant]) p["batch"] = std::to_string(batch);
  if (seq > 0) p["seq"] = std::to_string(seq);
  if (decode >= 0) p["decode"] = std::to_string(decode);
  std::string spec = builders_[tenant];
  char sep = ':';
  for (const auto& [k, v] : p) {
    spec.push_back(sep);
    spec.append(k).append("=").append(v);
    sep = ',';
  }
  return spec;
}

int EngineServiceTable::bucket_of(std::size_t tenant, int seq) const {
  const TenantSpec& t = config_->tenants[tenant];
  if (seq <= 0 || t.seq_buckets.empty()) return seq;
  for (int b : t.seq_buckets)
    if (b >= seq) return b;
  throw InputError(config_->file, tenant_place(tenant, "seq_buckets"),
                   "a request of seq " + std::to_string(seq) +
                       " is above every bucket (re-search is not implemented)");
}

Plan EngineServiceTable::plan_at(std::size_t tenant, int batch, int seq, int decode, const Graph* same_as,
                                 const std::vector<std::string>& on) const {
  Graph g = load_workload(spec_of(tenant, batch, seq, decode), seed_);
  pin(g, tenant, on);
  if (same_as && (g.op_count() != same_as->op_count() || g.tensor_count() != same_as->tensor_count()))
    throw InputError(config_->file, tenant_place(tenant, "shape_plans"),
                     "two-level plans need one graph structure at every shape, but " + g.name + " and " +
                         same_as->name + " differ");
  return plan_with(CostModel(g, *platform_), config_->tenants[tenant].policy);
}

Plan EngineServiceTable::plan_with(const CostModel& cost, const std::string& policy) const {
  const PolicyContext ctx{cost, seed_, nullptr, nullptr};
  return policy_by_name(policy).plan(ctx);
}

int EngineServiceTable::cache_check_seq(std::size_t i) const {
  const auto& buckets =
      caches_.at(i)
          .find_tenant(cache_key(i, config_->tenants[i].batching.mode == BatchingMode::Continuous ? 0 : -1))
          ->buckets;
  return buckets.empty() ? 0 : buckets.front().seq;
}

ServiceRecord EngineServiceTable::measure(std::size_t tenant, int batch, int seq, int decode,
                                          const std::vector<std::string>& on) {
  const TenantSpec& t = config_->tenants[tenant];
  if (!t.cache.empty()) return measure_cached(tenant, batch, seq, decode, on);
  Graph g = load_workload(spec_of(tenant, batch, seq, decode), seed_);
  pin(g, tenant, on);
  const CostModel cost(g, *platform_);
  if (!t.stored_plan.empty()) {
    // A stored plan (a front's or select's) carries its own placement and rewrites; it is replayed as stored.
    const pareto::StoredPlan stored = pareto::load_stored_plan(t.stored_plan, t.stored_plan_id, cost);
    validate_plan(stored.plan, *stored.cost);
    return run_plan(stored.plan, *stored.cost, on);
  }
  const int bucket = bucket_of(tenant, seq);
  const Plan plan =
      bucket == seq ? plan_with(cost, t.policy) : plan_at(tenant, batch, bucket, decode, &g, on);
  validate_plan(plan, cost);
  return run_plan(plan, cost, on);
}

ServiceRecord service_record_of(const Execution& e, const Plan& plan, const Platform& platform,
                                const std::vector<std::string>& placed_on) {
  ServiceRecord r;
  r.seconds = e.makespan;
  const std::size_t n = platform.devices.size();
  r.busy = busy_seconds_per_device(e, plan, n);
  r.dynamic_joules.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    r.dynamic_joules[d] = e.device_energy[d] - platform.devices[d].idle_watts() * e.makespan;
    const bool placed =
        placed_on.empty() || std::count(placed_on.begin(), placed_on.end(), platform.devices[d].name) > 0;
    if (r.busy[d] > 0 && placed) r.devices.push_back(d);
  }
  // The pipeline profile: where on each device the batch's ops begin and end (ops of no duration, such
  // as graph inputs, occupy nothing).
  r.first_start.assign(n, e.makespan);
  r.last_end.assign(n, 0.0);
  for (std::size_t o = 0; o < e.ops.size(); ++o) {
    if (e.ops[o].end <= e.ops[o].start) continue;
    const auto d = static_cast<std::size_t>(plan.device[o]);
    r.first_start[d] = std::min(r.first_start[d], e.ops[o].start);
    r.last_end[d] = std::max(r.last_end[d], e.ops[o].end);
  }
  for (std::size_t l = 0; l < platform.links.size(); ++l)
    r.link_dynamic_joules += e.link_energy[l] - platform.links[l].idle_watts * e.makespan;
  return r;
}

ServiceRecord EngineServiceTable::run_plan(const Plan& plan, const CostModel& cost,
                                           const std::vector<std::string>& on) const {
  const Execution e = engine_ == "simgrid" ? run_simgrid(plan, cost) : run_contention(plan, cost);
  return service_record_of(e, plan, *platform_, on);
}

const ServiceRecord& EngineServiceTable::record(std::size_t tenant, ServicePart part, int batch, int seq) {
  const TenantSpec& t = config_->tenants[tenant];
  // Padded: the batch runs its bucket's graph. Two-level: its bucket's plan on the graph of its own shape.
  if (!t.two_level_shapes) seq = bucket_of(tenant, seq);
  const auto key = std::make_tuple(tenant, static_cast<int>(part), batch, seq);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  // A decode step needs the prefill's record on its devices; it is timed on its own. A split tenant's
  // prefill record is on its prefill devices, so its steps subtract a prefill run on the decode devices.
  const bool split = !t.prefill_devices.empty();
  const ServiceRecord* prefill =
      part == ServicePart::DecodeStep && !split ? &record(tenant, ServicePart::Prefill, batch, seq) : nullptr;
  const auto began = std::chrono::steady_clock::now();
  const std::vector<std::string>& on = placed_on(tenant, part);
  ServiceRecord r, decode_pool_prefill;
  if (part == ServicePart::Whole) r = measure(tenant, batch, seq, -1, on);
  if (part == ServicePart::Prefill) r = measure(tenant, batch, seq, 0, on);
  if (part == ServicePart::DecodeStep) {
    if (split) prefill = &(decode_pool_prefill = measure(tenant, batch, seq, 0, on));
    // One token step: (prefill and D steps) less the prefill, over D. The steps' context grows from seq to
    // seq + D - 1, so this is the mean step over that range.
    const ServiceRecord whole = measure(tenant, batch, seq, tokens_[tenant], on);
    const double d = tokens_[tenant];
    r = whole;
    r.first_start.clear(); // a mean step has no timeline of its own: it is held whole
    r.last_end.clear();
    r.seconds = (whole.seconds - prefill->seconds) / d;
    for (std::size_t i = 0; i < r.busy.size(); ++i) {
      r.busy[i] = (whole.busy[i] - prefill->busy[i]) / d;
      r.dynamic_joules[i] = (whole.dynamic_joules[i] - prefill->dynamic_joules[i]) / d;
    }
    r.link_dynamic_joules = (whole.link_dynamic_joules - prefill->link_dynamic_joules) / d;
  }
  measuring_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return cache_.emplace(key, std::move(r)).first->second;
}

double EngineServiceTable::link_idle_watts() const {
  double w = 0.0;
  for (const auto& l : platform_->links)
    w += l.idle_watts;
  return w;
}

std::string EngineServiceTable::provenance() const {
  return std::string(engine_ == "simgrid" ? "SimGrid replay" : "contention-aware evaluator")
      .append(" of each batch's plan on ")
      .append(platform_->name)
      .append(" (")
      .append(std::to_string(cache_.size()))
      .append(" records")
      .append(caches_.empty() ? ")"
                              : "; plans from Pareto caches, " + std::to_string(cache_searches()) +
                                    " fronts re-searched)");
}

} // namespace hs::serving
