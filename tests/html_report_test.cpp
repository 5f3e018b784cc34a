// The HTML pages as files: the data they embed reads back unchanged whatever names it holds, bad documents
// are refused with the place named, the same input gives the same bytes, and `run` and `pareto` write
// their page beside their JSON under the same no-overwrite rule. What the pages draw is checked in a
// browser by tests/browser/pages_test.sh (ctest browser_pages).
#include "cli/html_page.hpp"
#include "cli/html_report.hpp"
#include "cli_support.hpp"
#include "sim/error.hpp"
#include "sim/svg_chart.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <functional>

namespace fs = std::filesystem;
using OJson = nlohmann::ordered_json;

namespace {

// The text of <script type="application/json" id="ID">...</script>.
std::string embedded(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const auto from = page.find(open);
  REQUIRE(from != std::string::npos);
  const auto start = from + open.size();
  const auto end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return page.substr(start, end - start);
}

OJson tiny_report() {
  return OJson::parse(R"({"format": "heterosim-report", "version": 1, "platform": "p", "workload": "w",
    "policy": "heft", "engine": "simgrid", "seed": 0, "ops": 1, "makespan_s": 0.5,
    "energy": {"total_j": 1, "devices_j": {"d": 1}, "links_j": {}},
    "devices": {"d": {"kind": "cpu", "ops": 1, "busy_s": 0.5, "utilization": 1, "peak_memory_bytes": 0,
                      "memory_capacity_bytes": 1, "over_capacity": false}},
    "links": {}, "transfers": {"count": 0, "bytes": 0},
    "timeline": {"ops": [{"op": "a</script><!--<script>", "kind": "gemm", "device": "d", "stream": 0,
                          "pstate": 0, "start_s": 0, "end_s": 0.5}], "transfers": []}})");
}

std::string refusal(const std::function<void()>& write) {
  try {
    write();
  } catch (const hs::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

nlohmann::json sweep() {
  return nlohmann::json::parse(
      R"({"title": "t", "parameters": ["platform", "policy"], "metrics": ["latency_s"],
    "rows": [{"platform": "a", "policy": "heft", "latency_s": 1}, {"platform": "b", "policy": "heft", "latency_s": null}],
    "plots": [{"x": "platform", "y": "latency_s", "series": "policy"}]})");
}

} // namespace

TEST_CASE("embedded JSON survives names that would end or disturb a script element") {
  const OJson report = tiny_report();
  const std::string page = hs::cli::run_page(report);
  const std::string data = embedded(page, "hs-report");
  CHECK(data.find('<') == std::string::npos);
  CHECK(OJson::parse(data) == report);
  CHECK(page.find("document.body.dataset.ready") != std::string::npos);
  CHECK(hs::cli::script_safe_json(R"({"a": "</script>"})") == R"({"a": "\u003c/script>"})");
  CHECK(hs::xml_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;");
}

TEST_CASE("the same documents give byte-identical pages") {
  const OJson report = tiny_report();
  CHECK(hs::cli::run_page(report) == hs::cli::run_page(report));
  CHECK(hs::cli::sweep_page(sweep()) == hs::cli::sweep_page(sweep()));
  const OJson explain =
      OJson::parse(hs::test::slurp(hs::test::source_dir() + "/tests/browser/explain-topcuoglu2002.json"));
  const std::string page = hs::cli::run_page(report, &explain);
  CHECK(OJson::parse(embedded(page, "hs-explain")) == explain);
  CHECK(page == hs::cli::run_page(report, &explain));
}

TEST_CASE("documents of another format are refused, naming which and where") {
  OJson report = tiny_report();
  report["format"] = "heterosim-pareto-front";
  CHECK(refusal([&] { hs::cli::run_page(report); }) == "report: format: is not \"heterosim-report\"");
  const OJson good = tiny_report();
  const OJson explain = OJson::parse(R"({"format": "heterosim-explain", "version": 2})");
  CHECK(refusal([&] { hs::cli::run_page(good, &explain); }) ==
        "explain: version: is not 1, the only version this build reads");
  CHECK(refusal([&] { hs::cli::front_page(good); }) == "front: format: is not \"heterosim-pareto-front\"");
}

TEST_CASE("a malformed sweep is refused with the place named") {
  CHECK(refusal([] { hs::cli::sweep_page(sweep()); }) == "(accepted)");
  struct Case {
    std::string pointer; // JSON pointer of the member to change
    nlohmann::json value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"/plots/0/y", "energy_j", "sweep: plots[0].y: names no metric"},
      {"/plots/0/x", "seed", "sweep: plots[0].x: names neither a parameter nor a metric"},
      {"/plots/0/series", "latency_s", "sweep: plots[0].series: names no parameter (null for a single line)"},
      {"/rows/1/latency_s", "fast", "sweep: rows[1].latency_s: must be a number or null (a metric)"},
      {"/rows/1/policy", nullptr, "sweep: rows[1].policy: must be a string or a number (a parameter)"},
      {"/metrics/1", "latency_s", "sweep: metrics[1]: \"latency_s\" is listed twice"},
      {"/metrics/0", "policy", "sweep: metrics: \"policy\" is also a parameter"},
      {"/title", 3, "sweep: title: expected a string"},
  };
  for (const auto& c : cases) {
    nlohmann::json s = sweep();
    s[nlohmann::json::json_pointer(c.pointer)] = c.value;
    CHECK_MESSAGE(refusal([&] { hs::cli::sweep_page(s); }) == c.expected, c.pointer);
  }
  nlohmann::json missing = sweep();
  missing["rows"][0].erase("platform");
  CHECK(refusal([&] { hs::cli::sweep_page(missing); }) ==
        "sweep: rows[0]: missing required field 'platform'");
}

TEST_CASE("run writes report.html beside report.json, never over one without --force") {
  const fs::path dir = hs::test::scratch_dir("html-test", "run");
  const std::string cmd =
      "run --platform workstation --workload random:ops=20 -q --out " + (dir / "o").string();
  REQUIRE(hs::test::heterosim(cmd).exit_code == 0);
  const std::string page = hs::test::slurp(dir / "o" / "report.html");
  CHECK(OJson::parse(embedded(page, "hs-report")) ==
        OJson::parse(hs::test::slurp(dir / "o" / "report.json")));
  fs::remove(dir / "o" / "report.json");
  fs::remove(dir / "o" / "timeline.csv");
  fs::remove(dir / "o" / "trace.json");
  fs::remove(dir / "o" / "gantt.svg");
  fs::remove(dir / "o" / "gantt.png");
  const auto again = hs::test::heterosim(cmd + " --seed 4");
  CHECK(again.exit_code != 0);
  CHECK(again.output.find("report.html: already exists") != std::string::npos);
  CHECK(hs::test::slurp(dir / "o" / "report.html") == page);
  REQUIRE(hs::test::heterosim(cmd + " --seed 4 --force").exit_code == 0);
  CHECK(hs::test::slurp(dir / "o" / "report.html") != page);
}
