// The Pareto cache's file: one JSON document, format "heterosim-pareto-cache", version 4. It names the
// platform and its identity (a hash of its description) and how the fronts were searched (whether
// replayed in SimGrid); each tenant names its workload (without seq= and batch=), its part (a decoder's
// prefill or decode, "whole" left out), the devices its searches used (left out: all) and its buckets, each
// bucket its seq, batch size and its front's plan entries as front.json writes them, with the latency and
// energy at the bucket's shape that picks use (replayed when the search replayed) and the evaluator's.
#include "serving/pareto_cache.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"

#include <utility>

namespace hs::serving {

namespace {

CacheBucket read_cache_bucket(const JsonNode& n) {
  n.expect_only({"seq", "batch", "plans"});
  CacheBucket b;
  b.seq = static_cast<int>(n.at("seq").as_integer(1, 1 << 20));
  b.batch = static_cast<int>(n.at("batch").as_integer(1, 1 << 16));
  for (const JsonNode& p : n.at("plans").items()) {
    p.expect_only({"latency_s", "energy_j", "evaluator", "plan"});
    CachedPlan c;
    c.latency = p.at("latency_s").as_number();
    c.energy = p.at("energy_j").as_number();
    const JsonNode eval = p.at("evaluator");
    eval.expect_only({"latency_s", "energy_j"});
    c.eval_latency = eval.at("latency_s").as_number();
    c.eval_energy = eval.at("energy_j").as_number();
    if (!p.at("plan").raw().is_object()) p.at("plan").fail("expected a front.json plan entry (an object)");
    c.entry = p.at("plan").raw();
    b.front.push_back(std::move(c));
  }
  if (b.front.empty()) n.at("plans").fail("a bucket needs at least one plan");
  return b;
}

} // namespace

ParetoCache ParetoCache::read(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  if (root.at("format").as_string() != kFormat)
    root.at("format").fail(std::string("expected \"") + kFormat + "\"");
  const long long version = root.at("version").as_integer(0, 1 << 30);
  if (version != kVersion)
    root.at("version").fail("version " + std::to_string(version) + " is not the version this build reads (" +
                            std::to_string(kVersion) + "); rebuild the cache");
  root.expect_only({"format", "version", "platform", "platform_id", "search", "tenants"});
  ParetoCache c;
  c.file = path;
  c.platform = root.at("platform").as_string();
  c.platform_id = root.at("platform_id").as_string();
  const JsonNode search = root.at("search");
  search.expect_only({"budget", "seed", "replay"});
  c.search.budget = static_cast<int>(search.at("budget").as_integer(1, 1 << 24));
  c.search.seed = static_cast<std::uint64_t>(search.at("seed").as_integer(0, 1LL << 62));
  c.search.replay = search.at("replay").as_bool();
  for (const JsonNode& t : root.at("tenants").items()) {
    t.expect_only({"name", "part", "workload", "devices", "buckets"});
    CacheTenant ct;
    ct.name = t.at("name").as_string();
    const std::string part = t.string_or("part", "whole");
    if (part != "whole" && part != "prefill" && part != "decode")
      t.at("part").fail("must be whole, prefill or decode (got '" + part + "')");
    ct.part = part == "prefill"  ? CachePart::Prefill
              : part == "decode" ? CachePart::Decode
                                 : CachePart::Whole;
    ct.workload = t.at("workload").as_string();
    if (auto d = t.find("devices")) ct.devices = d->as_string_list();
    for (const JsonNode& b : t.at("buckets").items()) {
      ct.buckets.push_back(read_cache_bucket(b));
      const auto n = ct.buckets.size();
      if (n > 1 && std::make_pair(ct.buckets[n - 2].batch, ct.buckets[n - 2].seq) >=
                       std::make_pair(ct.buckets[n - 1].batch, ct.buckets[n - 1].seq))
        b.at("seq").fail("buckets must be in increasing (batch, seq)");
    }
    c.tenants.push_back(std::move(ct));
  }
  return c;
}

nlohmann::json ParetoCache::to_json() const {
  nlohmann::json tj = nlohmann::json::array();
  for (const CacheTenant& t : tenants) {
    nlohmann::json bj = nlohmann::json::array();
    for (const CacheBucket& b : t.buckets) {
      nlohmann::json plans = nlohmann::json::array();
      for (const CachedPlan& p : b.front)
        plans.push_back({{"latency_s", p.latency},
                         {"energy_j", p.energy},
                         {"evaluator", {{"latency_s", p.eval_latency}, {"energy_j", p.eval_energy}}},
                         {"plan", p.entry}});
      bj.push_back({{"seq", b.seq}, {"batch", b.batch}, {"plans", plans}});
    }
    nlohmann::json entry = {{"name", t.name}, {"workload", t.workload}};
    if (t.part != CachePart::Whole) entry["part"] = cache_part_name(t.part);
    if (!t.devices.empty()) entry["devices"] = t.devices;
    entry["buckets"] = bj;
    tj.push_back(std::move(entry));
  }
  return {{"format", kFormat},
          {"version", kVersion},
          {"platform", platform},
          {"platform_id", platform_id},
          {"search", {{"budget", search.budget}, {"seed", search.seed}, {"replay", search.replay}}},
          {"tenants", tj}};
}

void ParetoCache::write(const std::string& path, bool force) const {
  write_file_atomically(path, to_json().dump(1) + "\n", force);
}

} // namespace hs::serving
