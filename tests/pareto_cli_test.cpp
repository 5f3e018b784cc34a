// `heterosim pareto` and `heterosim select` as a user meets them: files written once (no silent
// overwrite), byte-identical for a seed, errors that name the option or file, and select's choice
// matching the stored values.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using hs::test::heterosim;
using hs::test::Outcome;
using hs::test::slurp;

fs::path scratch(const std::string& name) {
  return hs::test::scratch_dir("pareto-test", name);
}

const std::string kRun =
    "pareto --platform " + hs::test::source_dir() +
    "/platforms/hetero-server.json --workload random:ops=24,precision=fp16 --budget 120 --seed 4 --quiet";

} // namespace

TEST_CASE("pareto writes the front, its plots and history, the same bytes for the same seed") {
  const fs::path a = scratch("a"), b = scratch("b");
  REQUIRE(heterosim(kRun + " --out " + a.string()).exit_code == 0);
  REQUIRE(heterosim(kRun + " --out " + b.string()).exit_code == 0);
  for (const char* f : {"front.json", "front.csv", "history.csv", "latency-energy.svg", "latency-memory.svg",
                        "energy-memory.svg"}) {
    CHECK_MESSAGE(fs::exists(a / f), f);
    CHECK_MESSAGE(slurp(a / f) == slurp(b / f), f, " differs between two runs with the same seed");
  }
  const auto j = nlohmann::json::parse(slurp(a / "front.json"));
  CHECK(j["format"] == "heterosim-pareto-front");
  REQUIRE(j["plans"].size() >= 1);
  for (const auto& p : j["plans"])
    CHECK(p.contains("simgrid")); // the front was replayed
  CHECK(j["hypervolume"]["front"].get<double>() >= j["hypervolume"]["baselines"].get<double>());
  // Baselines are marked on every plot.
  CHECK(slurp(a / "latency-energy.svg").find(">heft</text>") != std::string::npos);

  SUBCASE("no silent overwrite") {
    const Outcome again = heterosim(kRun + " --out " + a.string());
    CHECK(again.exit_code != 0);
    CHECK(again.output.find("front.json") != std::string::npos);
    CHECK(again.output.find("--force") != std::string::npos);
  }
  SUBCASE("select: least energy within 5% of the best latency") {
    double best_latency = 1e300;
    for (const auto& p : j["plans"])
      best_latency = std::min(best_latency, p["analytic"]["latency_s"].get<double>());
    double expected_energy = 1e300;
    for (const auto& p : j["plans"])
      if (p["analytic"]["latency_s"].get<double>() <= 1.05 * best_latency)
        expected_energy = std::min(expected_energy, p["analytic"]["energy_j"].get<double>());
    const fs::path chosen = a / "chosen.json";
    const Outcome s = heterosim("select --front " + (a / "front.json").string() +
                                " --min energy --max-latency 1.05x --out " + chosen.string());
    REQUIRE(s.exit_code == 0);
    const auto c = nlohmann::json::parse(slurp(chosen));
    CHECK(c["analytic"]["energy_j"].get<double>() == expected_energy);
    CHECK(c["analytic"]["latency_s"].get<double>() <= 1.05 * best_latency);
    CHECK(c.contains("placement"));
  }
  SUBCASE("weighted sum: the plan with the least weighted normalised objectives") {
    std::size_t expected = 0;
    double best = 1e300;
    for (std::size_t i = 0; i < j["plans"].size(); ++i) {
      const auto& n = j["plans"][i]["normalised"];
      const double s = 1.0 * n[0].get<double>() + 2.0 * n[1].get<double>() + 0.0 * n[2].get<double>();
      if (s < best) {
        best = s;
        expected = i;
      }
    }
    const Outcome s = heterosim("select --front " + (a / "front.json").string() + " --weights 1,2,0");
    REQUIRE(s.exit_code == 0);
    CHECK(s.output.find("plan " + std::to_string(expected) + " ") == 0);
  }
  SUBCASE("select reports an impossible limit and bad input clearly") {
    const Outcome none = heterosim("select --front " + (a / "front.json").string() + " --max-latency 0");
    CHECK(none.exit_code != 0);
    CHECK(none.output.find("no plan") != std::string::npos);
    const Outcome bad = heterosim("select --front " + (a / "front.json").string() + " --max-latency fast");
    CHECK(bad.exit_code != 0);
    CHECK(bad.output.find("--max-latency") != std::string::npos);
    const Outcome unknown = heterosim("select --front " + (a / "front.json").string() + " --min speed");
    CHECK(unknown.exit_code != 0);
    CHECK(unknown.output.find("--min") != std::string::npos);
  }
}

TEST_CASE("pareto and select refuse bad input with the place named") {
  const fs::path d = scratch("bad");
  const Outcome obj = heterosim(kRun + " --out " + d.string() + " --objectives latency,speed");
  CHECK(obj.exit_code != 0);
  CHECK(obj.output.find("--objectives: speed") != std::string::npos);
  const Outcome one = heterosim(kRun + " --out " + d.string() + " --objectives latency");
  CHECK(one.exit_code != 0);
  const Outcome w = heterosim(kRun + " --out " + d.string() + " --weights 1,2");
  CHECK(w.exit_code != 0);
  CHECK(w.output.find("--weights") != std::string::npos);
  std::ofstream(d / "broken.json")
      << "{\"format\": \"heterosim-pareto-front\", \"version\": 1, \"plans\": [{\"id\": 0}]}";
  const Outcome broken = heterosim("select --front " + (d / "broken.json").string());
  CHECK(broken.exit_code != 0);
  CHECK(broken.output.find("broken.json: plans[0]") != std::string::npos);
}
