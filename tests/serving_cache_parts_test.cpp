// The Pareto cache for every tenant kind: a decoder's prefill and decode fronts for continuous batching,
// searches restricted to a tenant's devices, and `serve --engine simgrid` on a replayed cache giving the
// records a direct SimGrid run of the same plan gives.
#include "cli_support.hpp"
#include "serving/pareto_cache.hpp"
#include "sim/cost_model.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace hs::serving;

namespace {

// gpt2-small decoding 2 tokens, buckets seq 16, batches 1 and 2, on gpu0 only, replayed in SimGrid.
const fs::path& decoder_cache() {
  static const fs::path path = [] {
    const fs::path dir = hs::test::scratch_dir("serving-cache-parts", "cache");
    const auto r = hs::test::heterosim("serve-cache --platform hetero-server --workload gpt2-small:decode=2 "
                                       "--tenant gpt --continuous --devices gpu0 --buckets 16 --batches 1,2 "
                                       "--budget 20 -q --force --out " +
                                       (dir / "cache.json").string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return dir / "cache.json";
  }();
  return path;
}

// Four requests of seq 10..16 arriving together, served by continuous batching (max 2) from the cache.
fs::path decoder_config(const fs::path& dir) {
  fs::copy_file(decoder_cache(), dir / "cache.json", fs::copy_options::overwrite_existing);
  hs::test::write_file(dir / "trace.csv", "time,tenant,seq\n0,gpt,10\n0,gpt,16\n0,gpt,12\n0.1,gpt,16\n");
  return hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "trace": "trace.csv", "tenants": [
      {"name": "gpt", "workload": "gpt2-small:decode=2", "arrival": {"process": "trace"}, "slo": "1s",
       "batching": {"mode": "continuous", "max_batch": 2},
       "placement": {"cache": "cache.json", "pick": "least-latency"}}]})");
}

nlohmann::json serve(const fs::path& config, const std::string& extra = "") {
  const auto r = hs::test::heterosim("serve --platform hetero-server -q --force --config " + config.string() +
                                     " --out " + (config.parent_path() / "out").string() + " " + extra);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return nlohmann::json::parse(hs::test::slurp(config.parent_path() / "out" / "serving.json"));
}

} // namespace

TEST_CASE("serve-cache --continuous --devices: prefill and decode fronts, searched on the tenant's devices") {
  const auto cache = nlohmann::json::parse(hs::test::slurp(decoder_cache()));
  REQUIRE(cache["tenants"].size() == 2);
  const auto& prefill = cache["tenants"][0];
  CHECK(prefill["name"] == "gpt");
  CHECK(prefill["part"] == "prefill");
  CHECK(prefill["workload"] == "gpt2-small:decode=0");
  CHECK(prefill["devices"] == nlohmann::json::array({"gpu0"}));
  CHECK(cache["tenants"][1]["part"] == "decode");
  CHECK(cache["tenants"][1]["workload"] == "gpt2-small:decode=2");
  // Every op of every plan is on gpu0, but graph inputs, which the pinning leaves free.
  for (const auto& t : cache["tenants"])
    for (const auto& b : t["buckets"]) {
      const hs::Graph g = hs::load_workload(
          cache_spec_at(t["workload"].get<std::string>(), b["seq"].get<int>(), b["batch"].get<int>()));
      std::map<std::string, std::string> kind;
      for (const auto& op : g.ops)
        kind[op.name] = op.kind;
      for (const auto& plan : b["plans"])
        for (const auto& entry : plan["plan"]["order"].items()) {
          const std::string device = entry.key();
          if (device == "gpu0") continue;
          for (const auto& name : entry.value().flatten().items())
            CHECK_MESSAGE(kind[name.value().get<std::string>()] == "input", device);
        }
    }
}

TEST_CASE("serve: a continuous-batching tenant takes its prefill and decode-step plans from the cache") {
  const fs::path dir = hs::test::scratch_dir("serving-cache-parts", "serve");
  const fs::path config = decoder_config(dir);
  const auto report = serve(config);
  CHECK(report["served"] == 4);
  int prefills = 0, steps = 0;
  for (const auto& rec : report["service_records"]) {
    REQUIRE(rec.contains("cache"));
    CHECK(rec["cache"]["bucket_seq"] == 16);
    CHECK(rec["cache"]["bucket_batch"] == rec["batch"]);
    CHECK(rec["devices_held"] == nlohmann::json::array({"gpu0"})); // the cache's devices
    prefills += rec["part"] == "prefill";
    steps += rec["part"] == "decode-step";
  }
  CHECK(prefills >= 1);
  CHECK(steps >= 2);
  const std::string first = hs::test::slurp(dir / "out" / "serving.json");
  (void)serve(config);
  CHECK(hs::test::slurp(dir / "out" / "serving.json") == first); // byte-identical rerun
}

// The end-to-end check: the cache's fronts were replayed in SimGrid, and serve's SimGrid records of a
// batch at a bucket's own shape equal both that replayed value and a direct SimGrid run of the same plan.
TEST_CASE("serve --engine simgrid on a replayed cache: records equal a direct SimGrid run of the plan") {
  const fs::path dir = hs::test::scratch_dir("serving-cache-parts", "simgrid");
  const fs::path config = decoder_config(dir);
  const auto report = serve(config, "--engine simgrid");
  const auto again = serve(config, "--engine simgrid");
  CHECK(again == report);
  const ParetoCache cache = ParetoCache::read((dir / "cache.json").string());
  const hs::Platform p = hs::load_platform("hetero-server");
  int checked = 0;
  for (const auto& rec : report["service_records"]) {
    if (rec["part"] != "prefill" || rec["seq"] != 16) continue; // a prefill record at the bucket's shape
    const CacheTenant& t = *cache.find_tenant("gpt:prefill");
    const CacheBucket* b = nullptr;
    for (const auto& x : t.buckets)
      if (x.batch == rec["batch"]) b = &x;
    REQUIRE(b != nullptr);
    const CachedPlan& plan = b->front[rec["cache"]["plan"].get<std::size_t>()];
    const hs::Graph g = hs::load_workload(cache_spec_at(t.workload, 16, b->batch));
    const hs::CostModel cost(g, p);
    const auto stored = cached_plan_on(plan, cost);
    const double direct = hs::run_simgrid(stored.plan, *stored.cost).makespan;
    CHECK(rec["seconds"].get<double>() == doctest::Approx(direct).epsilon(1e-12));
    CHECK(rec["seconds"].get<double>() == doctest::Approx(plan.latency).epsilon(1e-9)); // the cache's replay
    ++checked;
  }
  CHECK(checked >= 1);
}

TEST_CASE("serve-cache: an unknown --devices entry, --continuous on a non-decoder, and a whole-request cache "
          "for a continuous tenant are errors naming the place") {
  const fs::path dir = hs::test::scratch_dir("serving-cache-parts", "bad");
  const std::string out = " -q --force --buckets 16 --budget 5 --out " + (dir / "x.json").string();
  const auto device = hs::test::heterosim("serve-cache --platform hetero-server --workload gpt2-small "
                                          "--devices gpu0,gpu9" +
                                          out);
  CHECK(device.exit_code != 0);
  CHECK(device.output.find("--devices: gpu9: no such device on platform hetero-server") != std::string::npos);
  const auto bert =
      hs::test::heterosim("serve-cache --platform hetero-server --workload bert-base --continuous" + out);
  CHECK(bert.exit_code != 0);
  CHECK(bert.output.find("--continuous: bert-base: has no decode= parameter") != std::string::npos);
  // A cache of whole gpt2 requests has no prefill part for continuous batching.
  REQUIRE(hs::test::heterosim(
              "serve-cache --platform hetero-server --workload gpt2-small:decode=2 --tenant gpt" + out)
              .exit_code == 0);
  fs::copy_file(dir / "x.json", dir / "whole.json", fs::copy_options::overwrite_existing);
  hs::test::write_file(dir / "trace.csv", "time,tenant,seq\n0,gpt,16\n");
  const fs::path config =
      hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "trace": "trace.csv", "tenants": [
      {"name": "gpt", "workload": "gpt2-small:decode=2", "arrival": {"process": "trace"}, "slo": "1s",
       "batching": {"mode": "continuous", "max_batch": 2}, "placement": {"cache": "whole.json"}}]})");
  const auto r = hs::test::heterosim("serve --platform hetero-server -q --force --config " + config.string() +
                                     " --out " + (dir / "out").string());
  CHECK(r.exit_code != 0);
  CHECK_MESSAGE(r.output.find("whole.json: tenants: no tenant 'gpt:prefill'") != std::string::npos, r.output);
}
