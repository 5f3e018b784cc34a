// The serving timeline (serving/serving_timeline.hpp): the window it records, and the SVG `serve
// --timeline` writes: a queueing and a service bar per request of the window, grouped under its tenant's
// name, and each device's batches, byte-identical on a rerun.
#include "cli_support.hpp"
#include "serving/request_simulation.hpp"
#include "serving/serving_timeline.hpp"
#include "serving_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <regex>

namespace fs = std::filesystem;
using namespace hs::serving;

TEST_CASE(
    "serving timeline: the window is the first N requests from its start, and no device holds two batches") {
  TenantSpec t = hs::test::poisson_tenant("t", 300, 1.0);
  t.batching = {BatchingMode::Dynamic, 4, 0.002, 0.0};
  const std::vector<TenantSpec> tenants{t};
  hs::test::FixedService fixed([](std::size_t, int b) { return 0.001 + 0.0005 * b; });
  GeneratedArrivals arrivals(tenants, 5, 3000);
  TimelineRecorder rec(TimelineOptions{50, 2.0, 100000});
  SimulationOptions o;
  std::uint64_t first_after = ~0ull;
  o.on_request = [&](const RequestTrace& r) {
    rec.request(r);
    if (r.arrival >= 2.0) first_after = std::min(first_after, r.id);
  };
  o.on_span = [&](const DeviceSpan& s) { rec.span(s); };
  simulate_serving(tenants, fixed, arrivals, o);
  const auto rs = rec.requests();
  REQUIRE(rs.size() == 50);
  CHECK(rec.complete());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    CHECK(rs[i].id == first_after + i);
    CHECK(rs[i].arrival >= 2.0);
    CHECK(rs[i].start >= rs[i].arrival);
    CHECK(rs[i].end > rs[i].start);
  }
  const auto spans = rec.spans();
  REQUIRE(!spans.empty());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    CHECK(spans[i].requests >= 1);
    CHECK(spans[i].requests <= 4);
    CHECK(spans[i].end - spans[i].start == doctest::Approx(0.001 + 0.0005 * spans[i].requests));
    if (i > 0) CHECK(spans[i].start >= spans[i - 1].end - 1e-12); // one device: batches one after another
  }
  CHECK(spans.front().start <= rs.front().start); // the window's first batch is drawn
  CHECK(spans.back().end >= rs.back().end - 1e-12);
}

namespace {

struct Bar {
  double x, w;
};
std::vector<Bar> bars(const std::string& svg, const std::string& cls) {
  std::vector<Bar> out;
  const std::regex rect(
      "<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\" height=\"[0-9.]+\" class=\"" + cls + "\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  return out;
}

} // namespace

TEST_CASE("serve --timeline draws each request of the window under its tenant, and repeats byte for byte") {
  const fs::path dir = hs::test::scratch_dir("serving-timeline", "two-tenants");
  const fs::path config =
      hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "tenants": [
      {"name": "bert", "workload": "bert-base:seq=16,precision=fp16", "arrival": {"process": "poisson", "rate": 200},
       "slo": "20ms", "batching": {"mode": "dynamic", "max_batch": 4, "max_delay": "2ms"},
       "placement": {"devices": ["npu0"]}},
      {"name": "gpt<2>", "workload": "gpt2-small:seq=16,decode=2", "arrival": {"process": "poisson", "rate": 50},
       "slo": "100ms", "batching": {"mode": "continuous", "max_batch": 4}, "placement": {"devices": ["gpu0"]}}]})");
  const std::string common = "serve --platform hetero-server --requests 3000 --seed 2 -q --timeline "
                             "--timeline-requests 40 --timeline-from 1s --config " +
                             config.string() + " --out ";
  const auto a = hs::test::heterosim(common + (dir / "a").string());
  REQUIRE_MESSAGE(a.exit_code == 0, a.output);
  const std::string svg = hs::test::slurp(dir / "a" / "timeline.svg");
  CHECK(svg.find("class=\"tenant\" text-anchor=\"end\">bert</text>") != std::string::npos);
  CHECK(svg.find("class=\"tenant\" text-anchor=\"end\">gpt&lt;2&gt;</text>") != std::string::npos);
  const auto queueing = bars(svg, "queueing"), service = bars(svg, "request");
  REQUIRE(service.size() == 40);
  REQUIRE(queueing.size() == 40);
  for (std::size_t i = 0; i < service.size(); ++i) {
    // A request's service bar begins where its queueing bar ends: never before its arrival.
    CHECK(service[i].x >= queueing[i].x);
    // The SVG rounds x and width to 0.01 each, so the queueing bar's written end is within 0.01 of its
    // true end and the service bar's x within 0.005 of it.
    CHECK(service[i].x <= queueing[i].x + queueing[i].w + 0.015 + 1e-9);
  }
  CHECK(bars(svg, "batch").size() >= 10);
  for (const char* device : {">gpu0</text>", ">npu0</text>"})
    CHECK_MESSAGE(svg.find(device) != std::string::npos, device);
  REQUIRE(hs::test::heterosim(common + (dir / "b").string()).exit_code == 0);
  CHECK(svg == hs::test::slurp(dir / "b" / "timeline.svg"));
  const auto bad = hs::test::heterosim(common + (dir / "c").string() + " --timeline-from soon");
  CHECK(bad.exit_code != 0);
  CHECK(bad.output.find("--timeline-from") != std::string::npos);
}
