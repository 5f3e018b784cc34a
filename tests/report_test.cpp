#include "sim/analytic_engine.hpp"
#include "sim/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace hs;

TEST_CASE(
    "reports: CSV quotes awkward names, the trace has one event per op and transfer, JSON sums add up") {
  const Platform p = test::switch_platform();
  GraphBuilder b("r");
  auto x = b.op("conv,1 \"big\"").flops(1e12);
  auto y = b.op("y").flops(1e12);
  x.feeds(y, 1e9, "x->y");
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(2, p, "manual");
  plan.append(0, *p.find_device("a"));
  plan.append(1, *p.find_device("cpu"));
  const Report r = make_report({"switch", "r", "manual", 0}, plan, cost, run_analytic(plan, cost));

  const std::string csv = timeline_csv(r);
  CHECK(csv.find("op,\"conv,1 \"\"big\"\"\",a,0,") != std::string::npos);
  CHECK(csv.find("transfer,x->y,,,a,cpu,1000000000,") != std::string::npos);

  const auto trace = nlohmann::json::parse(chrome_trace(r));
  int complete = 0, processes = 0;
  for (const auto& e : trace["traceEvents"]) {
    complete += e["ph"] == "X";
    processes += e["name"] == "process_name";
  }
  CHECK(complete == 3);
  CHECK(processes == 3);

  const auto j = report_json(r);
  double sum = 0;
  for (const auto& [name, joules] : j["energy"]["devices_j"].items())
    sum += joules.get<double>();
  for (const auto& [name, joules] : j["energy"]["links_j"].items())
    sum += joules.get<double>();
  CHECK(j["energy"]["total_j"].get<double>() == doctest::Approx(sum));
  CHECK(j["transfers"]["bytes"].get<double>() == 1e9);
  CHECK(j["links"]["uplink"]["bytes"].get<double>() == 1e9);
  CHECK(j["devices"]["a"]["ops"] == 1);
  const std::string text = summary_text(r);
  CHECK(text.find("latency") != std::string::npos);
  CHECK(text.find("uplink") != std::string::npos);
}

TEST_CASE("reports: past kTimelineOpsUpTo ops report.json leaves the per-op timeline out unless asked") {
  const Platform p = test::switch_platform();
  GraphBuilder b("chain");
  auto prev = b.op("op0").flops(1e6);
  for (int i = 1; i <= kTimelineOpsUpTo; ++i) { // kTimelineOpsUpTo + 1 ops
    auto next = b.op("op" + std::to_string(i)).flops(1e6);
    prev.feeds(next, 1e3);
    prev = next;
  }
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  for (OpId o = 0; o < g.op_count(); ++o)
    plan.append(o, *p.find_device("a"));
  const Report r = make_report({"switch", "chain", "manual", 0}, plan, cost, run_analytic(plan, cost));

  const auto left_out = report_json(r);
  CHECK_FALSE(left_out["timeline"].contains("ops"));
  CHECK(left_out["timeline"]["omitted"].get<std::string>().find("100001 ops") == 0);
  CHECK(left_out["ops"] == kTimelineOpsUpTo + 1); // the summary figures stay
  const auto kept = report_json(r, Timeline::always);
  CHECK(kept["timeline"]["ops"].size() == static_cast<std::size_t>(kTimelineOpsUpTo + 1));
  CHECK(kept["timeline"]["ops"].back()["op"] == "op100000");
}
