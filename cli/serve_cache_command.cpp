// `heterosim serve-cache`: builds a Pareto cache file for `serve` (serving/pareto_cache.hpp,
// docs/serving.md): one tenant's fronts per shape bucket and batch size, searched on one platform and
// stamped with its identity, optionally refined where the front changes between buckets.
#include "cli/commands.hpp"
#include "serving/pareto_cache_refine.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/key_values.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct ServeCacheOptions {
  std::string platform;
  std::string workload;
  std::string tenant;
  std::vector<int> buckets;
  std::vector<int> batches = {1};
  std::vector<std::string> devices; // searches use only these; empty: every device
  bool continuous = false;          // a decoder's prefill and decode parts instead of whole requests
  int budget = 200;
  std::uint64_t seed = 1;
  double refine = 0.0;
  std::string out;
  bool no_replay = false;
  bool update = false;
  bool force = false;
  bool quiet = false;
};

// The builder must take seq= and batch=, which the buckets set, and the spec must not give them.
void check_cache_workload(const std::string& spec, bool continuous) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const WorkloadBuilder* b = workload_builders().find(name);
  if (!b) throw InputError("--workload", name, "not a workload builder (see `heterosim workloads`)");
  for (const char* key : {"seq", "batch", "decode"}) {
    bool known = false;
    for (const auto& p : b->parameters)
      known = known || p.key == key;
    if (std::string(key) == "decode") {
      if (continuous && !known)
        throw InputError("--continuous", name, "has no decode= parameter: not a decoder");
      continue;
    }
    if (!known) throw InputError("--workload", name, std::string("has no ") + key + "= parameter to bucket");
    if (colon != std::string::npos && parse_key_values(name, spec.substr(colon + 1)).count(key))
      throw InputError("--workload", spec, std::string("gives ") + key + "=; the buckets set it");
  }
}

void print_cache(const serving::ParetoCache& c, const std::string& tenant) {
  std::printf("%s\n%6s %6s %6s %14s %14s\n", tenant.c_str(), "seq", "batch", "plans", "fastest_ms",
              "least_energy_J");
  for (const auto& b : c.find_tenant(tenant)->buckets) {
    double least = b.front.front().energy;
    for (const auto& p : b.front)
      least = std::min(least, p.energy);
    std::printf("%6d %6d %6zu %14.4f %14.4f\n", b.seq, b.batch, b.front.size(), 1e3 * b.front.front().latency,
                least);
  }
}

int serve_cache(const ServeCacheOptions& o) {
  check_cache_workload(o.workload, o.continuous);
  const Platform platform = load_platform(o.platform);
  for (const auto& d : o.devices)
    if (!platform.find_device(d))
      throw InputError("--devices", d, "no such device on platform " + platform.name);
  const std::string identity = serving::platform_identity(o.platform);
  if (!o.update && !o.force && path_exists(o.out))
    throw InputError(o.out, "", "already exists; pass --update to add to it, --force to replace it");
  serving::ParetoCache cache;
  if (o.update && path_exists(o.out)) {
    cache = serving::ParetoCache::read(o.out);
    cache.bind_platform(platform, identity, false); // fronts of two platforms cannot share a file
  }
  // One file, one judge: fronts on replayed values and fronts on evaluator values do not mix.
  if (o.update && path_exists(o.out) && cache.search.replay == o.no_replay)
    throw InputError(o.out, "search.replay",
                     std::string("the cache's fronts are on ") +
                         (cache.search.replay ? "SimGrid-replayed" : "evaluator") + " values; --update it " +
                         (cache.search.replay ? "without" : "with") + " --no-replay, or --force a new one");
  cache.file = o.out;
  cache.search = {o.budget, o.seed, !o.no_replay};
  const std::string name = o.tenant.empty() ? o.workload.substr(0, o.workload.find(':')) : o.tenant;
  std::vector<std::string> keys;
  int added = 0;
  for (const auto part : o.continuous ? std::vector{serving::CachePart::Prefill, serving::CachePart::Decode}
                                      : std::vector{serving::CachePart::Whole}) {
    const std::string workload = serving::part_workload(o.workload, part);
    const serving::CacheTenant probe{name, part, workload, o.devices, {}};
    keys.push_back(probe.key());
    if (const auto* t = cache.find_tenant(probe.key())) {
      if (t->workload != workload || t->devices != o.devices)
        throw InputError(o.out, "tenants",
                         "tenant '" + probe.key() + "' holds workload '" + t->workload +
                             "' on other devices or not '" + workload + "'; name another --tenant");
    } else {
      cache.add_tenant(name, part, workload, o.devices);
    }
    for (int batch : o.batches)
      for (int seq : o.buckets) {
        cache.add_bucket(platform, identity, probe.key(), workload, seq, batch, cache.search);
        if (!o.quiet)
          std::fprintf(stderr, "serve-cache: searched %s seq %d batch %d\n", probe.key().c_str(), seq, batch);
      }
    if (o.refine > 0) {
      serving::CacheRefine r;
      r.tolerance = o.refine;
      added += serving::refine_cache(cache, platform, probe.key(), r, cache.search).added;
    }
  }
  cache.write(o.out, true); // overwriting was checked above
  if (!o.quiet) {
    for (const auto& key : keys)
      print_cache(cache, key);
    std::printf("%d fronts searched (%d buckets added by refinement); wrote %s\n", cache.searches, added,
                o.out.c_str());
  }
  return 0;
}

Action serve_cache_command(CLI::App& app) {
  auto o = std::make_shared<ServeCacheOptions>();
  auto* cmd = app.add_subcommand("serve-cache",
                                 "Build a Pareto cache for serve: fronts per shape bucket and batch size");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->required();
  cmd->add_option("--workload", o->workload,
                  "Builder spec without seq= and batch= (bert-base:precision=fp16)")
      ->required();
  cmd->add_option("--tenant", o->tenant, "Tenant name in the cache (default: the builder's name)");
  cmd->add_option("--buckets", o->buckets, "Sequence-length buckets, comma-separated (32,64,128)")
      ->required()
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batches", o->batches, "Batch sizes, comma-separated (1,2,4,8)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "Search plans on these devices only, comma-separated (a tenant's placement.devices)")
      ->delimiter(',');
  cmd->add_flag("--continuous", o->continuous,
                "A decoder for continuous batching: fronts of its prefill (decode=0) and of its graph "
                "of prefill and decode steps (the workload's decode=), not of whole requests");
  cmd->add_option("--budget", o->budget, "Evaluations per front")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Search seed")->capture_default_str();
  cmd->add_option("--refine", o->refine,
                  "Add a bucket between two where the upper one's plans lose more than this fraction at "
                  "the midpoint (0.05: 5%; 0: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "The cache file to write")->required();
  cmd->add_flag("--no-replay", o->no_replay,
                "Keep the evaluator's values: skip the SimGrid replay of each front member (picks then use "
                "the evaluator's values, as `serve` records by default)");
  cmd->add_flag("--update", o->update, "Add this tenant's buckets to an existing --out (same platform)");
  cmd->add_flag("--force", o->force, "Replace an existing --out");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  return [o] { return serve_cache(*o); };
}

HS_REGISTER_COMMAND(serve_cache, {"serve-cache", serve_cache_command})

} // namespace
} // namespace hs::cli
