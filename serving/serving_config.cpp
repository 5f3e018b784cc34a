#include "serving/serving_config.hpp"

#include "sim/json_input.hpp"
#include "sim/key_values.hpp"

#include <filesystem>
#include <set>

namespace hs::serving {
namespace {

ArrivalSpec parse_arrival(const JsonNode& n) {
  n.expect_only({"process", "rate", "cv"});
  ArrivalSpec a;
  const std::string process = n.at("process").as_string();
  if (process == "trace") {
    a.kind = ArrivalKind::Trace;
    return a;
  }
  if (process != "poisson" && process != "gamma")
    n.at("process").fail("must be poisson, gamma or trace (got '" + process + "')");
  a.kind = process == "gamma" ? ArrivalKind::Gamma : ArrivalKind::Poisson;
  const JsonNode rate = n.at("rate");
  a.rate = rate.as_number();
  if (!(a.rate > 0)) rate.fail("requests per second must be above 0");
  if (a.kind == ArrivalKind::Gamma) {
    const JsonNode cv = n.at("cv");
    a.cv = cv.as_number();
    if (!(a.cv > 0)) cv.fail("the coefficient of variation must be above 0");
  } else if (n.has("cv")) {
    n.at("cv").fail("only a gamma process has a cv (Poisson's is 1)");
  }
  return a;
}

BatchingSpec parse_batching(const JsonNode& n) {
  n.expect_only({"mode", "max_batch", "max_delay", "kv_memory", "kv_policy"});
  BatchingSpec b;
  const std::string mode = n.at("mode").as_string();
  if (mode == "none") return b;
  if (mode != "dynamic" && mode != "continuous")
    n.at("mode").fail("must be none, dynamic or continuous (got '" + mode + "')");
  b.mode = mode == "dynamic" ? BatchingMode::Dynamic : BatchingMode::Continuous;
  b.max_batch = static_cast<int>(n.at("max_batch").as_integer(1, 4096));
  if (b.mode == BatchingMode::Dynamic) b.max_delay = n.at("max_delay").as_quantity(units::Quantity::Time);
  if (auto kv = n.find("kv_memory")) {
    if (b.mode != BatchingMode::Continuous)
      kv->fail("only continuous batching keeps a KV cache across steps");
    b.kv_memory = kv->as_quantity(units::Quantity::Bytes);
    if (!(b.kv_memory > 0)) kv->fail("must be a positive size (bytes, or with a unit: 2GiB)");
  }
  if (auto policy = n.find("kv_policy")) {
    const std::string v = policy->as_string();
    if (v != "reserve" && v != "paged") policy->fail("must be reserve or paged (got '" + v + "')");
    if (b.kv_memory <= 0) policy->fail("needs kv_memory");
    b.kv_paged = v == "paged";
  }
  return b;
}

void parse_cache_placement(const JsonNode& n, TenantSpec& t) {
  const JsonNode cache = n.at("cache");
  t.cache = cache.as_string();
  if (t.cache.empty()) cache.fail("names no file");
  for (const char* other : {"policy", "devices", "plan", "plan_id", "prefill_devices", "decode_devices"})
    if (n.has(other)) cache.fail(std::string("a cache's plans bring their own placement: drop ") + other);
  if (!t.seq_buckets.empty()) cache.fail("the cache's buckets are the tenant's: drop seq_buckets");
  const std::string pick = n.string_or("pick", "least-energy-within-slo");
  if (pick != "least-latency" && pick != "least-energy-within-slo")
    n.at("pick").fail("must be least-latency or least-energy-within-slo (got '" + pick + "')");
  t.cache_least_latency = pick == "least-latency";
  if (auto limit = n.find("latency_limit")) {
    if (t.cache_least_latency) limit->fail("only least-energy-within-slo has a latency limit");
    t.cache_latency_limit = limit->as_quantity(units::Quantity::Time);
    if (!(t.cache_latency_limit > 0)) limit->fail("must be a positive duration");
  }
  if (auto r = n.find("re_search")) t.re_search = r->as_bool();
}

std::vector<std::string> device_list(const JsonNode& d) {
  std::vector<std::string> out = d.as_string_list();
  if (out.empty()) d.fail("lists no device (leave it out for every device)");
  if (std::set<std::string>(out.begin(), out.end()).size() != out.size()) d.fail("names a device twice");
  return out;
}

// DistServe's split: prefill on one device set, decode steps on another (continuous batching only).
void parse_split(const JsonNode& n, TenantSpec& t) {
  const JsonNode first = n.has("prefill_devices") ? n.at("prefill_devices") : n.at("decode_devices");
  if (!n.has("prefill_devices") || !n.has("decode_devices"))
    first.fail("prefill_devices and decode_devices go together");
  if (t.batching.mode != BatchingMode::Continuous)
    first.fail("splitting prefill from decode needs continuous batching (a decoder's running set)");
  if (n.has("devices") || n.has("plan")) first.fail("drop devices and plan: each phase has its devices");
  if (t.batching.kv_paged)
    first.fail("a preempted request would need its prefill again: use kv_policy reserve");
  t.prefill_devices = device_list(n.at("prefill_devices"));
  t.decode_devices = device_list(n.at("decode_devices"));
}

void parse_placement(const JsonNode& n, TenantSpec& t) {
  n.expect_only({"policy", "devices", "plan", "plan_id", "cache", "pick", "latency_limit", "re_search",
                 "prefill_devices", "decode_devices"});
  if (n.has("cache")) return parse_cache_placement(n, t);
  for (const char* cache_only : {"pick", "latency_limit", "re_search"})
    if (n.has(cache_only)) n.at(cache_only).fail("needs cache");
  t.policy = n.string_or("policy", t.policy);
  if (auto plan = n.find("plan")) {
    t.stored_plan = plan->as_string();
    if (t.stored_plan.empty()) plan->fail("names no file");
    if (n.has("policy") || n.has("devices"))
      plan->fail("a stored plan brings its own placement: drop policy and devices");
    if (t.batching.mode != BatchingMode::None || !t.seq_buckets.empty())
      plan->fail("a stored plan is one graph's: it serves batching none without seq_buckets");
  }
  if (auto id = n.find("plan_id")) {
    if (t.stored_plan.empty()) id->fail("needs plan");
    t.stored_plan_id = static_cast<int>(id->as_integer(0, 1 << 20));
  }
  if (auto d = n.find("devices")) t.devices = device_list(*d);
  if (n.has("prefill_devices") || n.has("decode_devices")) parse_split(n, t);
}

void parse_buckets(const JsonNode& n, TenantSpec& t) {
  for (const auto& item : n.items()) {
    t.seq_buckets.push_back(static_cast<int>(item.as_integer(1, 1 << 20)));
    if (t.seq_buckets.size() > 1 && t.seq_buckets.back() <= t.seq_buckets[t.seq_buckets.size() - 2])
      item.fail("buckets must rise");
  }
  if (t.seq_buckets.empty()) n.fail("lists no bucket");
}

TenantSpec parse_tenant(const JsonNode& n) {
  n.expect_only({"name", "workload", "arrival", "slo", "priority", "batching", "placement", "seq_buckets",
                 "shape_plans", "service_noise", "notes"});
  TenantSpec t;
  t.name = n.at("name").as_string();
  if (t.name.empty() || t.name.find_first_of(",\n\"") != std::string::npos)
    n.at("name").fail("must be non-empty, without commas, quotes or newlines");
  const JsonNode w = n.at("workload");
  t.workload = w.as_string();
  const auto colon = t.workload.find(':');
  if (colon != std::string::npos &&
      parse_key_values(t.workload.substr(0, colon), t.workload.substr(colon + 1)).count("batch"))
    w.fail("gives batch=; the batcher chooses each batch's size (see batching.max_batch)");
  t.arrival = parse_arrival(n.at("arrival"));
  t.slo = n.at("slo").as_quantity(units::Quantity::Time);
  if (!(t.slo > 0)) n.at("slo").fail("must be a positive duration");
  if (auto p = n.find("priority")) t.priority = static_cast<int>(p->as_integer(-1000, 1000));
  if (auto b = n.find("batching")) t.batching = parse_batching(*b);
  if (auto b = n.find("seq_buckets")) parse_buckets(*b, t);
  if (auto p = n.find("placement")) parse_placement(*p, t);
  if (auto s = n.find("shape_plans")) {
    const std::string v = s->as_string();
    if (v != "padded" && v != "two-level") s->fail("must be padded or two-level (got '" + v + "')");
    if (t.seq_buckets.empty()) s->fail("needs seq_buckets");
    t.two_level_shapes = v == "two-level";
  }
  if (auto s = n.find("service_noise")) {
    const std::string v = s->as_string();
    if (v != "none" && v != "exponential") s->fail("must be none or exponential (got '" + v + "')");
    t.exponential_service = v == "exponential";
  }
  return t;
}

// A relative path in the serving file is beside it, so a study directory can be moved whole.
std::string beside(const std::string& file, const std::string& path) {
  const auto dir = std::filesystem::path(file).parent_path();
  if (path.empty() || std::filesystem::path(path).is_absolute() || dir.empty()) return path;
  return (dir / path).string();
}

ServingConfig parse_serving_json(const Json& doc, const std::string& file) {
  const JsonNode root(doc, file, "");
  root.expect_only({"format", "version", "description", "tenants", "trace", "notes"});
  root.expect_format("heterosim-serving", true);
  ServingConfig c;
  c.file = file;
  const JsonNode tenants = root.at("tenants");
  std::set<std::string> names;
  for (const auto& item : tenants.items()) {
    c.tenants.push_back(parse_tenant(item));
    c.tenants.back().stored_plan = beside(file, c.tenants.back().stored_plan);
    c.tenants.back().cache = beside(file, c.tenants.back().cache);
    if (!names.insert(c.tenants.back().name).second) item.at("name").fail("names a tenant twice");
  }
  if (c.tenants.empty()) tenants.fail("lists no tenant");
  bool traced = false;
  for (const auto& t : c.tenants)
    traced = traced || t.arrival.kind == ArrivalKind::Trace;
  if (auto trace = root.find("trace")) {
    c.trace = beside(file, trace->as_string());
    for (std::size_t i = 0; i < c.tenants.size(); ++i)
      if (c.tenants[i].arrival.kind != ArrivalKind::Trace)
        tenants.items()[i].at("arrival").fail("must be {\"process\": \"trace\"} when the file gives a trace");
  } else if (traced) {
    root.fail("a tenant's arrivals come from a trace, but the file gives no \"trace\"");
  }
  return c;
}

} // namespace

ServingConfig parse_serving_config(const std::string& json_text, const std::string& file) {
  const Json doc = parse_json_text(json_text, file);
  return parse_serving_json(doc, file);
}

ServingConfig load_serving_config(const std::string& path) {
  const Json doc = read_json_file(path);
  return parse_serving_json(doc, path);
}

} // namespace hs::serving
