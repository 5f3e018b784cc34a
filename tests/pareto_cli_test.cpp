// `heterosim pareto` and `heterosim select` as a user meets them: files written once (no silent
// overwrite), byte-identical for a seed, errors that name the option or file, and select's choice
// matching the stored values.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <cmath>
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
    "/platforms/hetero-server.json --workload random:ops=24,precision=fp16 --budget 120 --seed 5 --quiet";

} // namespace

TEST_CASE("pareto writes the front, its plots and history, the same bytes for the same seed") {
  const fs::path a = scratch("a"), b = scratch("b");
  REQUIRE(heterosim(kRun + " --out " + a.string()).exit_code == 0);
  REQUIRE(heterosim(kRun + " --out " + b.string()).exit_code == 0);
  for (const char* f : {"front.json", "front.csv", "history.csv", "front.html", "latency-energy.svg",
                        "latency-memory.svg", "energy-memory.svg"}) {
    CHECK_MESSAGE(fs::exists(a / f), f);
    CHECK_MESSAGE(slurp(a / f) == slurp(b / f), f, " differs between two runs with the same seed");
  }
  const auto j = nlohmann::json::parse(slurp(a / "front.json"));
  CHECK(j["format"] == "heterosim-pareto-front");
  REQUIRE(j["plans"].size() >= 1);
  CHECK(j["front_engine"] == "simgrid");
  for (const auto& p : j["plans"]) {
    REQUIRE(p.contains("simgrid")); // the front was replayed
    REQUIRE(p.contains("evaluator"));
    // The search's evaluator predicted every member within 5% of its replay.
    CHECK(std::abs(p["search_error"]["latency"].get<double>()) <= 0.05);
    CHECK(p["search_error"]["latency"].get<double>() ==
          doctest::Approx(
              p["evaluator"]["latency_s"].get<double>() / p["simgrid"]["latency_s"].get<double>() - 1));
  }
  // The front is defined on replayed values: no member is dominated by another there.
  for (const auto& p : j["plans"])
    for (const auto& q : j["plans"]) {
      const auto a_ = p["normalised"].get<std::vector<double>>(),
                 b_ = q["normalised"].get<std::vector<double>>();
      bool no_worse = true, better = false;
      for (std::size_t k = 0; k < a_.size(); ++k) {
        no_worse = no_worse && b_[k] <= a_[k];
        better = better || b_[k] < a_[k];
      }
      CHECK_FALSE((no_worse && better));
    }
  CHECK(j["hypervolume"]["engine"] == "simgrid");
  CHECK(j["hypervolume"]["front"].get<double>() >= j["hypervolume"]["baselines"].get<double>());
  // Baselines are marked on every plot.
  CHECK(slurp(a / "latency-energy.svg").find(">heft</text>") != std::string::npos);

  SUBCASE("no silent overwrite") {
    const Outcome again = heterosim(kRun + " --out " + a.string());
    CHECK(again.exit_code != 0);
    CHECK(again.output.find("front.json") != std::string::npos);
    CHECK(again.output.find("--force") != std::string::npos);
  }
  SUBCASE("select: least energy within 5% of the best latency, on replayed values; run --plan replays it") {
    double best_latency = 1e300;
    for (const auto& p : j["plans"])
      best_latency = std::min(best_latency, p["simgrid"]["latency_s"].get<double>());
    double expected_energy = 1e300;
    for (const auto& p : j["plans"])
      if (p["simgrid"]["latency_s"].get<double>() <= 1.05 * best_latency)
        expected_energy = std::min(expected_energy, p["simgrid"]["energy_j"].get<double>());
    const fs::path chosen = a / "chosen.json";
    const Outcome s = heterosim("select --front " + (a / "front.json").string() +
                                " --min energy --max-latency 1.05x --out " + chosen.string());
    REQUIRE(s.exit_code == 0);
    const auto c = nlohmann::json::parse(slurp(chosen));
    CHECK(c["format"] == "heterosim-plan");
    const auto& plan = c["plan"];
    CHECK(plan["simgrid"]["energy_j"].get<double>() == expected_energy);
    CHECK(plan["simgrid"]["latency_s"].get<double>() <= 1.05 * best_latency);
    CHECK(plan.contains("placement"));

    const std::string run =
        "run --platform " + hs::test::source_dir() +
        "/platforms/hetero-server.json --workload random:ops=24,precision=fp16 --seed 5 -q";
    const Outcome replayed =
        heterosim(run + " --plan " + chosen.string() + " --out " + (a / "replayed").string());
    REQUIRE(replayed.exit_code == 0);
    const auto r = nlohmann::json::parse(slurp(a / "replayed" / "report.json"));
    CHECK(r["makespan_s"].get<double>() ==
          doctest::Approx(plan["simgrid"]["latency_s"].get<double>()).epsilon(1e-9));
    CHECK(r["energy"]["total_j"].get<double>() ==
          doctest::Approx(plan["simgrid"]["energy_j"].get<double>()).epsilon(1e-9));
    for (const auto& [device, bytes] : plan["simgrid"]["peak_memory_bytes"].items())
      CHECK(r["devices"][device]["peak_memory_bytes"].get<double>() == doctest::Approx(bytes.get<double>()));
    // From the front itself, by id; a front with several plans needs the id.
    const std::string id = std::to_string(plan["id"].get<int>());
    CHECK(heterosim(run + " --plan " + (a / "front.json").string() + " --plan-id " + id + " --out " +
                    (a / "by-id").string())
              .exit_code == 0);
    CHECK(nlohmann::json::parse(slurp(a / "by-id" / "report.json"))["makespan_s"] == r["makespan_s"]);
    if (j["plans"].size() > 1) {
      const Outcome ambiguous =
          heterosim(run + " --plan " + (a / "front.json").string() + " --out " + (a / "x").string());
      CHECK(ambiguous.exit_code != 0);
      CHECK(ambiguous.output.find("--plan-id") != std::string::npos);
    }
    const Outcome other =
        heterosim("run --platform workstation --workload random:ops=24 --seed 5 -q --plan " +
                  chosen.string() + " --out " + (a / "y").string());
    CHECK(other.exit_code != 0);
    CHECK(other.output.find("chosen.json: platform") != std::string::npos);
  }
  SUBCASE(
      "every member, a baseline's plan dealt over a GPU's streams too, replays from front.json as scored") {
    bool multi_stream = false;
    for (std::size_t i = 0; i < j["plans"].size(); ++i) {
      const auto& p = j["plans"][i];
      for (const auto& [device, queue] : p["order"].items())
        multi_stream = multi_stream || (!queue.empty() && queue[0].is_array());
      const fs::path out = a / ("member-" + std::to_string(i));
      const Outcome r = heterosim(
          "run --platform " + hs::test::source_dir() +
          "/platforms/hetero-server.json --workload random:ops=24,precision=fp16 --seed 5 "
          "-q --plan " +
          (a / "front.json").string() + " --plan-id " + std::to_string(i) + " --out " + out.string());
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      CHECK(nlohmann::json::parse(slurp(out / "report.json"))["makespan_s"].get<double>() ==
            doctest::Approx(p["simgrid"]["latency_s"].get<double>()).epsilon(1e-9));
    }
    CHECK(multi_stream); // heft's plan uses several of the GPU's streams: the nested form is exercised
    // More stream lists than the device has streams: refused, naming the queue.
    auto front = j;
    for (auto& p : front["plans"])
      for (auto& [device, queue] : p["order"].items())
        if (device == "gpu0") {
          auto streams = queue[0].is_array() ? queue : nlohmann::json::array({queue});
          while (streams.size() < 9)
            streams.push_back(nlohmann::json::array());
          queue = streams;
        }
    std::ofstream(a / "too-many-streams.json") << front.dump();
    const Outcome bad =
        heterosim("run --platform " + hs::test::source_dir() +
                  "/platforms/hetero-server.json --workload random:ops=24,precision=fp16 --seed 5 "
                  "-q --plan-id 0 --plan " +
                  (a / "too-many-streams.json").string() + " --out " + (a / "bad").string());
    CHECK(bad.exit_code != 0);
    CHECK(bad.output.find("lists 9 streams; gpu0 has 8") != std::string::npos);
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
  std::ofstream(d / "broken.json") << "{\"format\": \"heterosim-pareto-front\", \"version\": 1, "
                                      "\"objectives\": [{\"name\": \"latency\"}], "
                                      "\"plans\": [{\"id\": 0}]}";
  const Outcome broken = heterosim("select --front " + (d / "broken.json").string());
  CHECK(broken.exit_code != 0);
  CHECK(broken.output.find("broken.json: plans[0]") != std::string::npos);
}
