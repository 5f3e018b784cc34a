// The policy suite from the command line: run-time policies through `run`, `compare`, scenarios and
// policy configuration files, with their errors.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using hs::test::heterosim;
using hs::test::Outcome;

fs::path scratch(const std::string& name) {
  return hs::test::scratch_dir("policy-cli", name);
}

using hs::test::write_file;

const std::string kTextbook = " --platform " + hs::test::source_dir() +
                              "/platforms/textbook-3p.json --workload " + hs::test::source_dir() +
                              "/workloads/examples/topcuoglu2002.json";

} // namespace

TEST_CASE("run accepts run-time policies, and refuses them on the analytic engine with a clear reason") {
  const auto dir = scratch("dynamic");
  const Outcome ok = heterosim("run" + kTextbook + " --policy dmda --out " + dir.string());
  CHECK(ok.exit_code == 0);
  CHECK(ok.output.find("dmda") != std::string::npos);
  CHECK(fs::exists(dir / "report.json"));
  const Outcome refused =
      heterosim("run" + kTextbook + " --policy eager --engine analytic --out " + (dir / "x").string());
  CHECK(refused.exit_code != 0);
  CHECK(refused.output.find("run time") != std::string::npos);
  const Outcome unknown = heterosim("run" + kTextbook + " --policy eagre --out " + (dir / "y").string());
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.output.find("work-stealing") != std::string::npos); // the known names include run-time ones
}

TEST_CASE("compare prints one row per policy with ratios to fastest-device, identically for the same seed") {
  const auto dir = scratch("compare");
  const std::string args = "compare" + kTextbook + " --policies heft,peft,eager --csv ";
  const Outcome a = heterosim(args + (dir / "a.csv").string());
  const Outcome b = heterosim(args + (dir / "b.csv").string());
  REQUIRE(a.exit_code == 0);
  for (const char* name : {"fastest-device", "heft", "peft", "eager"})
    CHECK(a.output.find(name) != std::string::npos);
  std::stringstream sa, sb;
  sa << std::ifstream(dir / "a.csv").rdbuf();
  sb << std::ifstream(dir / "b.csv").rdbuf();
  CHECK(sa.str() == sb.str());
  // HEFT on the Topcuoglu example: 80, as published (Topcuoglu, Hariri, Wu 2002).
  CHECK(sa.str().find("heft,static,80,") != std::string::npos);
  CHECK(heterosim(args + (dir / "a.csv").string()).exit_code != 0); // no silent overwrite

  // On the analytic engine run-time policies are left out by default, and fail when asked for.
  const Outcome analytic = heterosim("compare" + kTextbook + " --engine analytic");
  CHECK(analytic.exit_code == 0);
  CHECK(analytic.output.find("left out: dmda, eager, hybrid, work-stealing") != std::string::npos);
  const Outcome asked = heterosim("compare" + kTextbook + " --engine analytic --policies heft,eager");
  CHECK(asked.exit_code == 4);
  CHECK(asked.output.find("failed:") != std::string::npos);

  // Another baseline: every ratio is relative to it, and it is run even when not listed.
  const fs::path rel = dir / "heft-baseline.csv";
  const Outcome by_heft =
      heterosim("compare" + kTextbook + " --policies peft --baseline heft --csv " + rel.string());
  REQUIRE(by_heft.exit_code == 0);
  CHECK(by_heft.output.find("ratios are relative to heft") != std::string::npos);
  std::stringstream rs;
  rs << std::ifstream(rel).rdbuf();
  CHECK(rs.str().find("heft,static,80,1.000,") != std::string::npos);
  CHECK(rs.str().find("fastest-device") == std::string::npos);
  const Outcome unknown = heterosim("compare" + kTextbook + " --baseline hef");
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.output.find("did you mean 'heft'?") != std::string::npos);
}

TEST_CASE(
    "scenario and policy-config files: applied when valid, errors naming the file and place otherwise") {
  const auto dir = scratch("files");
  const auto slow = write_file(dir / "slow.json", R"({"format": "heterosim-scenario", "version": 1,
      "devices": [{"device": "P2", "profile": [{"at": 0, "availability": 0.5}]}], "noise": {"cv": 0.1, "seed": 3}})");
  const Outcome ok =
      heterosim("run" + kTextbook + " --scenario " + slow.string() + " --out " + (dir / "s").string());
  CHECK(ok.exit_code == 0);
  // The evaluator applies the scenario as the replay does (within its error); the contention-free bound has
  // no time-varying resources and refuses it, naming the file.
  const auto report = [&](const fs::path& d) {
    std::stringstream s;
    s << std::ifstream(d / "report.json").rdbuf();
    return s.str();
  };
  const auto makespan = [&](const fs::path& d) {
    const std::string r = report(d);
    const auto at = r.find("\"makespan_s\":");
    return std::stod(r.substr(at + 13));
  };
  const Outcome evaluated = heterosim("run" + kTextbook + " --engine evaluator --scenario " + slow.string() +
                                      " --out " + (dir / "e").string());
  REQUIRE(evaluated.exit_code == 0);
  CHECK(evaluated.output.find("(contention-aware evaluator)") != std::string::npos);
  CHECK(makespan(dir / "e") == doctest::Approx(makespan(dir / "s")).epsilon(0.01));
  const Outcome nominal = heterosim("run" + kTextbook + " --engine evaluator --out " + (dir / "n").string());
  REQUIRE(nominal.exit_code == 0);
  CHECK(makespan(dir / "e") > 1.05 * makespan(dir / "n")); // P2 at half speed slows the plan down
  const Outcome lower_bound = heterosim("run" + kTextbook + " --engine analytic --scenario " + slow.string() +
                                        " --out " + (dir / "a").string());
  CHECK(lower_bound.exit_code != 0);
  CHECK(lower_bound.output.find("slow.json") != std::string::npos);
  CHECK(lower_bound.output.find("cannot apply a scenario") != std::string::npos);
  const auto bad = write_file(
      dir / "bad.json",
      R"({"version": 1, "devices": [{"device": "P9", "profile": [{"at": 0, "availability": 0.5}]}]})");
  const Outcome refused =
      heterosim("run" + kTextbook + " --scenario " + bad.string() + " --out " + (dir / "t").string());
  CHECK(refused.exit_code != 0);
  CHECK(refused.output.find("bad.json: devices[0].device") != std::string::npos);
  const auto config = write_file(dir / "config.json", R"({"heft-dvfs": {"slack": -1}})");
  const Outcome bad_slack = heterosim("run" + kTextbook + " --policy heft-dvfs --policy-config " +
                                      config.string() + " --out " + (dir / "u").string());
  CHECK(bad_slack.exit_code != 0);
  CHECK(bad_slack.output.find("config.json: heft-dvfs.slack") != std::string::npos);
}
