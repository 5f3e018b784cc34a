// Continuous batching under a KV-cache budget: a request joins the running set only if its KV cache (its
// prompt and every token it will generate) fits beside the running set's.
#include "cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

// gpt2-small (12 layers, hidden 768, fp32): 2 x 12 x 768 x 4 = 73,728 bytes a token; a request of seq 16
// generating 2 tokens holds 18 tokens: 1,327,104 bytes.
constexpr double kPerRequest = 2.0 * 12 * 768 * 4 * (16 + 2);

nlohmann::json serve_eight_at_once(const fs::path& dir, const std::string& kv, hs::test::Outcome* out) {
  std::string trace = "time,tenant\n";
  for (int i = 0; i < 8; ++i)
    trace += "0,gpt\n";
  hs::test::write_file(dir / "trace.csv", trace);
  const fs::path config =
      hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "trace": "trace.csv", "tenants": [
      {"name": "gpt", "workload": "gpt2-small:seq=16,decode=2", "arrival": {"process": "trace"}, "slo": "1s",
       "batching": {"mode": "continuous", "max_batch": 8)" +
                                                     kv + R"(},
       "placement": {"policy": "heft", "devices": ["gpu0"]}}]})");
  *out = hs::test::heterosim("serve --platform hetero-server -q --force --config " + config.string() +
                             " --out " + (dir / "out").string());
  if (out->exit_code != 0) return {};
  return nlohmann::json::parse(hs::test::slurp(dir / "out" / "serving.json"))["tenants"][0];
}

} // namespace

TEST_CASE("serving: continuous batching admits a request only while its KV cache fits") {
  const fs::path dir = hs::test::scratch_dir("serving-kv", "limit");
  hs::test::Outcome out;
  const auto free = serve_eight_at_once(dir, "", &out);
  REQUIRE_MESSAGE(out.exit_code == 0, out.output);
  CHECK(free["largest_batch"] == 8);
  CHECK_FALSE(free.contains("kv_cache"));
  // Room for two requests' caches, not three.
  const auto two = serve_eight_at_once(dir, R"(, "kv_memory": )" + std::to_string(2.5 * kPerRequest), &out);
  REQUIRE_MESSAGE(out.exit_code == 0, out.output);
  CHECK(two["served"] == 8);
  CHECK(two["largest_batch"] == 2);
  CHECK(two["kv_cache"]["peak_bytes"].get<double>() == doctest::Approx(2 * kPerRequest).epsilon(1e-12));
  CHECK(two["kv_cache"]["iterations_held_back"].get<int>() >= 3); // the other six waited for memory
  CHECK(two["latency_s"]["max"].get<double>() > 2 * free["latency_s"]["max"].get<double>());
}

TEST_CASE("serving: a KV-cache budget below one request, or on whole-request batching, is an error") {
  const fs::path dir = hs::test::scratch_dir("serving-kv", "bad");
  hs::test::Outcome out;
  (void)serve_eight_at_once(dir, R"(, "kv_memory": "1MB")", &out);
  CHECK(out.exit_code != 0);
  CHECK_MESSAGE(
      out.output.find("serving.json: tenants[0] ('gpt').batching.kv_memory: a request of seq 16 generating 2 "
                      "tokens needs a KV cache of 1327104 bytes") != std::string::npos,
      out.output);
  const fs::path config =
      hs::test::write_file(dir / "dynamic.json", R"({"format": "heterosim-serving", "version": 1,
    "tenants": [{"name": "gpt", "workload": "gpt2-small:seq=16,decode=2", "arrival": {"process": "poisson", "rate": 5},
      "slo": "1s", "batching": {"mode": "dynamic", "max_batch": 8, "max_delay": "1ms", "kv_memory": "1GB"}}]})");
  const auto dynamic = hs::test::heterosim("serve --platform hetero-server -q --force --config " +
                                           config.string() + " --out " + (dir / "out").string());
  CHECK(dynamic.exit_code != 0);
  CHECK(dynamic.output.find("tenants[0].batching.kv_memory: only continuous batching keeps a KV cache") !=
        std::string::npos);
}
