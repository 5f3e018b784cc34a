// `heterosim serve-cache` and `serve` with a tenant placed by a Pareto cache, as a user runs them: each
// batch's plan comes from the bucket of its shape and size, batches above 1 use their own fronts, another
// platform description is refused or re-searched, and bad input names the file and the field.
#include "cli_support.hpp"
#include "sim/json_input.hpp"
#include "sim/platform.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

// A cache of bert-base, buckets 16 and 32, batches 1 and 2, small searches (built once per process).
const fs::path& built_cache() {
  static const fs::path path = [] {
    const fs::path dir = hs::test::scratch_dir("serving-cache-cli", "cache");
    const auto r =
        hs::test::heterosim("serve-cache --platform hetero-server --workload bert-base --tenant bert "
                            "--buckets 16,32 --batches 1,2 --budget 30 -q --out " +
                            (dir / "cache.json").string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return dir / "cache.json";
  }();
  return path;
}

// A serving file of one bert tenant with `placement`, its arrivals from a trace of shapes 10, 20, 30
// arriving in pairs (so dynamic batches of 2 form).
fs::path cache_config(const fs::path& dir, const std::string& placement, const std::string& trace_seqs = "") {
  std::string trace = "time,tenant,seq\n";
  const std::string seqs = trace_seqs.empty() ? "10,10,20,20,30,30,30" : trace_seqs;
  int i = 0;
  for (std::size_t at = 0; at <= seqs.size(); ++i) {
    const auto comma = seqs.find(',', at);
    trace += std::to_string(0.05 * (i / 2)) + ",bert," + seqs.substr(at, comma - at) + "\n";
    at = comma == std::string::npos ? seqs.size() + 1 : comma + 1;
  }
  hs::test::write_file(dir / "trace.csv", trace);
  return hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "trace": "trace.csv", "tenants": [
      {"name": "bert", "workload": "bert-base", "arrival": {"process": "trace"}, "slo": "50ms",
       "batching": {"mode": "dynamic", "max_batch": 2, "max_delay": "1ms"},
       "placement": )" + placement + "}]}");
}

hs::test::Outcome serve(const fs::path& config, const std::string& extra = "") {
  return hs::test::heterosim("serve --platform hetero-server -q --force --config " + config.string() +
                             " --out " + (config.parent_path() / "out").string() + " " + extra);
}

} // namespace

TEST_CASE("serve-cache writes a versioned cache that names its platform, serve looks each batch up in it") {
  const auto cache = nlohmann::json::parse(hs::test::slurp(built_cache()));
  CHECK(cache["format"] == "heterosim-pareto-cache");
  CHECK(cache["version"] == 4);
  CHECK(cache["search"]["replay"] == true); // by default each front is replayed in SimGrid
  const auto& plan = cache["tenants"][0]["buckets"][0]["plans"][0];
  CHECK(plan["latency_s"].get<double>() > 0);
  CHECK(plan["evaluator"]["latency_s"].get<double>() > 0); // both values per plan
  CHECK(cache["platform"] == "hetero-server");
  CHECK(cache["platform_id"].get<std::string>().size() == 16);
  REQUIRE(cache["tenants"][0]["buckets"].size() == 4); // (1, 16), (1, 32), (2, 16), (2, 32)
  CHECK(cache["tenants"][0]["buckets"][2]["batch"] == 2);

  const fs::path dir = hs::test::scratch_dir("serving-cache-cli", "serve");
  fs::copy_file(built_cache(), dir / "cache.json");
  const fs::path config = cache_config(dir, R"({"cache": "cache.json", "pick": "least-latency"})");
  const auto r = serve(config);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string first = hs::test::slurp(dir / "out" / "serving.json");
  REQUIRE(serve(config).exit_code == 0);
  CHECK(hs::test::slurp(dir / "out" / "serving.json") == first); // byte-identical rerun
  const auto report = nlohmann::json::parse(first);
  CHECK(report["served"] == 7);
  int batch_two = 0;
  for (const auto& rec : report["service_records"]) {
    if (rec["part"] != "whole") continue;
    REQUIRE(rec.contains("cache"));
    const int seq = rec["seq"], batch = rec["batch"];
    CHECK(rec["cache"]["bucket_seq"] == (seq <= 16 ? 16 : 32));
    CHECK(rec["cache"]["bucket_batch"] == batch); // batches of 2 use the batch-2 fronts
    CHECK(rec["cache"]["plan"] == 0);             // least latency: the front's fastest
    batch_two += batch == 2;
  }
  CHECK(batch_two >= 2);
  CHECK(report["service_times"].get<std::string>().find("0 fronts re-searched") != std::string::npos);
}

TEST_CASE("serve with a cache: shapes above every bucket, and another platform, are errors or re-searched") {
  const fs::path dir = hs::test::scratch_dir("serving-cache-cli", "re-search");
  fs::copy_file(built_cache(), dir / "cache.json");
  const auto above = serve(cache_config(dir, R"({"cache": "cache.json"})", "10,40"));
  CHECK(above.exit_code != 0);
  CHECK_MESSAGE(above.output.find("cache.json: tenant 'bert': shape seq=40 batch=2 is above every bucket") !=
                    std::string::npos,
                above.output);
  CHECK(serve(cache_config(dir, R"({"cache": "cache.json", "re_search": true})", "10,40")).exit_code == 0);
  // --save-cache writes the re-searched bucket back: the next run finds it without re-search.
  REQUIRE(serve(cache_config(dir, R"({"cache": "cache.json", "re_search": true})", "10,40"), "--save-cache")
              .exit_code == 0);
  const auto saved = nlohmann::json::parse(hs::test::slurp(dir / "cache.json"));
  CHECK(saved["tenants"][0]["buckets"].size() == 5); // (2, 40) added
  const auto found = serve(cache_config(dir, R"({"cache": "cache.json"})", "10,40"));
  CHECK_MESSAGE(found.exit_code == 0, found.output);
  fs::copy_file(built_cache(), dir / "cache.json", fs::copy_options::overwrite_existing);

  // The same platform with another description: its identity differs.
  auto platform = hs::read_json_file(hs::platform_file("hetero-server"));
  platform["description"] = "hetero-server, described again";
  hs::test::write_file(dir / "other.json", platform.dump());
  const fs::path config = cache_config(dir, R"({"cache": "cache.json"})");
  const auto other = hs::test::heterosim("serve -q --force --platform " + (dir / "other.json").string() +
                                         " --config " + config.string() + " --out " + (dir / "out").string());
  CHECK(other.exit_code != 0);
  CHECK_MESSAGE(
      other.output.find("cache.json: platform_id: the cache was built for platform 'hetero-server'") !=
          std::string::npos,
      other.output);
  const auto again =
      hs::test::heterosim("serve -q --force --platform " + (dir / "other.json").string() + " --config " +
                          cache_config(dir, R"({"cache": "cache.json", "re_search": true})").string() +
                          " --out " + (dir / "out").string());
  REQUIRE_MESSAGE(again.exit_code == 0, again.output);
  const auto report = nlohmann::json::parse(hs::test::slurp(dir / "out" / "serving.json"));
  CHECK(report["service_times"].get<std::string>().find(" 0 fronts re-searched") == std::string::npos);
}

TEST_CASE("serve and serve-cache: bad cache input names the file and the field") {
  const fs::path dir = hs::test::scratch_dir("serving-cache-cli", "bad");
  fs::copy_file(built_cache(), dir / "cache.json");
  const auto refusal = [&](const std::string& placement) {
    return serve(cache_config(dir, placement)).output;
  };
  CHECK(refusal(R"({"cache": "missing.json"})").find("missing.json") != std::string::npos);
  CHECK(refusal(R"({"cache": "cache.json", "pick": "cheapest"})")
            .find("tenants[0].placement.pick: must be least-latency or least-energy-within-slo") !=
        std::string::npos);
  CHECK(refusal(R"({"cache": "cache.json", "policy": "heft"})").find("drop policy") != std::string::npos);
  CHECK(refusal(R"({"policy": "heft", "re_search": true})").find("placement.re_search: needs cache") !=
        std::string::npos);
  auto cache = nlohmann::json::parse(hs::test::slurp(built_cache()));
  cache["tenants"][0]["name"] = "roberta";
  hs::test::write_file(dir / "renamed.json", cache.dump());
  CHECK(refusal(R"({"cache": "renamed.json"})").find("renamed.json: tenants: no tenant 'bert'") !=
        std::string::npos);
  cache["tenants"][0]["name"] = "bert";
  cache["tenants"][0]["workload"] = "bert-large";
  hs::test::write_file(dir / "large.json", cache.dump());
  CHECK(refusal(R"({"cache": "large.json"})").find("tenants[0].workload: 'bert-base' is not the workload") !=
        std::string::npos);
  cache["version"] = 1;
  hs::test::write_file(dir / "v1.json", cache.dump());
  CHECK(refusal(R"({"cache": "v1.json"})").find("v1.json: version: version 1 is not the version") !=
        std::string::npos);
  cache["version"] = 4;
  cache["tenants"][0]["buckets"][1]["batch"] = "two";
  hs::test::write_file(dir / "field.json", cache.dump());
  CHECK(refusal(R"({"cache": "field.json"})").find("field.json: tenants[0].buckets[1].batch") !=
        std::string::npos);

  const auto gives_seq =
      hs::test::heterosim("serve-cache --platform hetero-server --workload bert-base:seq=64 "
                          "--buckets 16 --out " +
                          (dir / "x.json").string());
  CHECK(gives_seq.exit_code != 0);
  CHECK(gives_seq.output.find("--workload: bert-base:seq=64: gives seq=; the buckets set it") !=
        std::string::npos);
  const auto exists =
      hs::test::heterosim("serve-cache --platform hetero-server --workload bert-base --buckets 16 "
                          "--out " +
                          (dir / "cache.json").string());
  CHECK(exists.exit_code != 0);
  CHECK(exists.output.find("already exists") != std::string::npos);
  // --update adds a tenant to a cache of the same platform description, and refuses another one.
  const std::string update =
      "serve-cache --workload bert-base --tenant second --buckets 16 --budget 20 -q --update "
      "--out " +
      (dir / "cache.json").string() + " --platform ";
  const auto added = hs::test::heterosim(update + "hetero-server");
  REQUIRE_MESSAGE(added.exit_code == 0, added.output);
  const auto both = nlohmann::json::parse(hs::test::slurp(dir / "cache.json"));
  REQUIRE(both["tenants"].size() == 2);
  CHECK(both["tenants"][1]["name"] == "second");
  auto platform = hs::read_json_file(hs::platform_file("hetero-server"));
  platform["description"] = "another description";
  hs::test::write_file(dir / "other.json", platform.dump());
  const auto refused = hs::test::heterosim(update + (dir / "other.json").string());
  CHECK(refused.exit_code != 0);
  CHECK(refused.output.find("cache.json: platform_id: the cache was built for platform") !=
        std::string::npos);
}
