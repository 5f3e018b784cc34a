// `heterosim serve` as a user runs it: the summary, the files, byte-identical reruns, no silent overwrite.
#include "cli_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

TEST_CASE("serve reports every tenant, writes serving.json and requests.csv, and repeats byte for byte") {
  const fs::path dir = hs::test::scratch_dir("serving-cli", "two-tenants");
  const fs::path config =
      hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "tenants": [
      {"name": "bert", "workload": "bert-base:seq=16", "arrival": {"process": "poisson", "rate": 200},
       "slo": "20ms", "priority": 1, "batching": {"mode": "dynamic", "max_batch": 4, "max_delay": "2ms"},
       "placement": {"policy": "heft", "devices": ["gpu0"]}},
      {"name": "gpt", "workload": "gpt2-small:seq=16,decode=2", "arrival": {"process": "gamma", "rate": 50, "cv": 2},
       "slo": "100ms", "batching": {"mode": "continuous", "max_batch": 4},
       "placement": {"policy": "heft", "devices": ["gpu0"]}}]})");
  const std::string common =
      "serve --platform hetero-server --scheduler edf --requests 2000 --requests-csv --seed 3 --config " +
      config.string() + " --out ";
  const auto a = hs::test::heterosim(common + (dir / "a").string());
  REQUIRE_MESSAGE(a.exit_code == 0, a.output);
  for (const char* what : {"bert", "gpt", "p99", "SLO met", "Jain", "gpu0", "contention-aware evaluator"})
    CHECK_MESSAGE(a.output.find(what) != std::string::npos, what);
  const auto report = nlohmann::json::parse(hs::test::slurp(dir / "a" / "serving.json"));
  CHECK(report["arrived"] == 2000);
  CHECK(report["served"] == 2000);
  CHECK(report["tenants"][0]["largest_batch"].get<int>() <= 4);
  CHECK(report["devices"]["gpu0"]["utilisation"].get<double>() > 0);
  CHECK(report["devices"]["npu0"]["utilisation"].get<double>() == 0);
  const std::string csv = hs::test::slurp(dir / "a" / "requests.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 2001);
  REQUIRE(hs::test::heterosim(common + (dir / "b").string() + " -q").exit_code == 0);
  CHECK(hs::test::slurp(dir / "a" / "serving.json") == hs::test::slurp(dir / "b" / "serving.json"));
  CHECK(csv == hs::test::slurp(dir / "b" / "requests.csv"));
  const auto again = hs::test::heterosim(common + (dir / "a").string() + " -q");
  CHECK(again.exit_code != 0);
  CHECK(again.output.find("already exists; pass --force") != std::string::npos);
}
