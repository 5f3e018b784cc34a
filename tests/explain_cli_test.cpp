// `heterosim explain` and `run --explain` from the command line: the documented JSON keys, the aligned
// text, byte-identical reruns, refusals with the place named, and no overwrite without --force.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using hs::test::heterosim;
using hs::test::Outcome;

namespace {

const std::string kTextbook = " --platform " + hs::test::source_dir() +
                              "/platforms/textbook-3p.json --workload " + hs::test::source_dir() +
                              "/workloads/examples/topcuoglu2002.json";

fs::path scratch(const std::string& name) {
  return hs::test::scratch_dir("explain-cli", name);
}

} // namespace

TEST_CASE("explain --format json writes the documented document, the same bytes every time") {
  const auto dir = scratch("json");
  const Outcome first = heterosim("explain" + kTextbook + " --policy heft-classic --format json --out " +
                                  (dir / "a.json").string());
  REQUIRE(first.exit_code == 0);
  CHECK(heterosim("explain" + kTextbook + " --policy heft-classic --format json --out " +
                  (dir / "b.json").string())
            .exit_code == 0);
  CHECK(hs::test::slurp(dir / "a.json") == hs::test::slurp(dir / "b.json"));
  const auto j = nlohmann::json::parse(hs::test::slurp(dir / "a.json"));
  CHECK(j["format"] == "heterosim-explain");
  CHECK(j["version"] == 1);
  CHECK(j["policy"] == "heft-classic");
  CHECK(j["form"] == "classic");
  CHECK(j["platform"] == "textbook-3p");
  CHECK(j["workload"] == "topcuoglu2002");
  CHECK(j["time_unit"] == "s");
  CHECK(j["rank_name"] == "upward rank");
  REQUIRE(j["ranks"].size() == 10);
  CHECK(j["ranks"][0]["op"] == "n1");
  CHECK(j["ranks"][0]["rank"] == 108.0);
  CHECK(j["ranks"][0]["mean_cost"] == 13.0);
  CHECK_FALSE(j["ranks"][0].contains("oct"));
  REQUIRE(j["decisions"].size() == 10);
  const auto& step1 = j["decisions"][0];
  CHECK(step1["step"] == 1);
  CHECK(step1["op"] == "n1");
  CHECK(step1["candidates"][0] == nlohmann::json::parse(R"({"device":"P1","start":0.0,"finish":14.0,
                                                           "o_eft":null,"ready":0.0})"));
  CHECK(step1["chosen"] == "P3");
  CHECK(step1["start"] == 0.0);
  CHECK(step1["finish"] == 9.0);
  CHECK(step1["rule"] == "earliest finish time");
  CHECK(step1["tie"].is_null());
  CHECK(j["decisions"][9]["op"] == "n10");
  CHECK(j["decisions"][9]["chosen"] == "P2");
  CHECK(j["makespan"] == 80.0);

  // The output is never replaced without --force.
  const Outcome again =
      heterosim("explain" + kTextbook + " --policy heft --format json --out " + (dir / "a.json").string());
  CHECK(again.exit_code == 1);
  CHECK(again.output.find((dir / "a.json").string() + ": already exists") != std::string::npos);
  CHECK(heterosim("explain" + kTextbook + " --policy heft --format json --force --out " +
                  (dir / "a.json").string())
            .exit_code == 0);
  CHECK(nlohmann::json::parse(hs::test::slurp(dir / "a.json"))["form"] == "contention-aware");
}

TEST_CASE("explain prints HEFT's rank table and decisions as aligned columns") {
  const Outcome out = heterosim("explain" + kTextbook + " --policy heft-classic");
  REQUIRE(out.exit_code == 0);
  // Columns: position, op, w-bar, upward rank; the paper's n3/n4 tie in topological order.
  CHECK(out.output.find("\n    #  op    w-bar  upward rank\n"
                        "    1  n1   13.000      108.000\n"
                        "    2  n3   14.333       80.000\n"
                        "    3  n4   12.667       80.000\n") != std::string::npos);
  CHECK(out.output.find("\n   step  op   device   ready     EST      EFT\n"
                        "      1  n1   P1       0.000   0.000   14.000\n"
                        "              P2       0.000   0.000   16.000\n"
                        "              P3       0.000   0.000    9.000  <- chosen\n") != std::string::npos);
  CHECK(out.output.find("Schedule length of the list schedule: 80.000 s\n") != std::string::npos);
}

TEST_CASE("explain prints PEFT's OCT table and the O_EFT of every candidate as aligned text") {
  const Outcome out = heterosim("explain" + kTextbook + " --policy peft-classic");
  REQUIRE(out.exit_code == 0);
  CHECK(out.output.find(
            "peft-classic (classic) on workload 'topcuoglu2002', platform 'textbook-3p'; times in s") == 0);
  CHECK(out.output.find("OCT(P1)  OCT(P2)  OCT(P3)  rank_oct") != std::string::npos);
  CHECK(out.output.find("O_EFT") != std::string::npos);
  CHECK(out.output.find("<- chosen") != std::string::npos);
  const auto j =
      nlohmann::json::parse(heterosim("explain" + kTextbook + " --policy peft-classic --format json").output);
  CHECK(j["rank_name"] == "rank_oct");
  CHECK(j["ranks"][0]["oct"].size() == 3);
  // O_EFT = EFT + OCT for every candidate, from the same table.
  for (const auto& d : j["decisions"])
    for (const auto& c : d["candidates"])
      CHECK(c["o_eft"].get<double>() == doctest::Approx(c["finish"].get<double>() + c["oct"].get<double>()));
}

TEST_CASE("explain refuses policies with nothing to explain and names those that can") {
  const Outcome dynamic = heterosim("explain" + kTextbook + " --policy eager");
  CHECK(dynamic.exit_code == 1);
  CHECK(dynamic.output.find("--policy: eager: policy 'eager' decides at run time") != std::string::npos);
  CHECK(dynamic.output.find("explainable: expert-grouping, heft, heft-classic, memory-aware, "
                            "memory-aware-classic, peft, peft-classic") != std::string::npos);
  const Outcome not_list = heterosim("explain" + kTextbook + " --policy fastest-device");
  CHECK(not_list.exit_code == 1);
  CHECK(not_list.output.find("is not a list scheduler") != std::string::npos);
  const Outcome typo = heterosim("explain" + kTextbook + " --policy hefft");
  CHECK(typo.exit_code == 1);
  CHECK(typo.output.find("did you mean 'heft'") != std::string::npos);
}

TEST_CASE("run --explain writes explain.json next to the report, or says there is nothing to explain") {
  const auto dir = scratch("run");
  const Outcome ok = heterosim("run" + kTextbook + " --policy peft --explain -q --out " + dir.string());
  REQUIRE(ok.exit_code == 0);
  const auto j = nlohmann::json::parse(hs::test::slurp(dir / "explain.json"));
  CHECK(j["policy"] == "peft");
  CHECK(j["form"] == "contention-aware");
  // The same document as the explain command gives.
  CHECK(hs::test::slurp(dir / "explain.json") ==
        heterosim("explain" + kTextbook + " --policy peft --format json").output);

  const Outcome refused = heterosim("run" + kTextbook + " --policy peft --explain -q --out " + dir.string());
  CHECK(refused.exit_code == 1);
  const Outcome nothing =
      heterosim("run" + kTextbook + " --policy eager --explain --force -q --out " + dir.string());
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.output.find("--explain: policy 'eager' decides at run time") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "explain.json")); // no explanation of the earlier plan is left behind
  CHECK(fs::exists(dir / "report.json"));
}
