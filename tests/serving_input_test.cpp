// Bad serving files and traces: each refused with the file and the field named.
#include "serving/arrivals.hpp"
#include "serving/service_table.hpp"
#include "serving/serving_config.hpp"
#include "sim/error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

namespace {

using namespace hs::serving;

std::string tenant_file(const std::string& tenant_body, const std::string& extra = "") {
  return R"({"format": "heterosim-serving", "version": 1, )" + extra +
         R"("tenants": [{"name": "bert", "workload": "bert-base:seq=32", )" + tenant_body + "}]}";
}

std::string refusal(const std::string& text) {
  try {
    parse_serving_config(text, "serving.json");
  } catch (const hs::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string trace_refusal(const std::string& body) {
  const auto path = std::filesystem::temp_directory_path() / "hs-serving-trace-test.csv";
  std::ofstream(path) << body;
  std::vector<TenantSpec> tenants(1);
  tenants[0].name = "bert";
  try {
    TraceArrivals t(path.string(), tenants, 0);
    while (t.next()) {
    }
  } catch (const hs::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST_CASE("a serving file's bad fields are refused naming the file and the field") {
  const std::string poisson = R"("arrival": {"process": "poisson", "rate": 10}, )";
  const std::string ok = poisson + R"("slo": "50ms")";
  CHECK(refusal(tenant_file(ok)) == "(accepted)");
  const std::pair<std::string, std::string> cases[] = {
      {tenant_file(R"("arrival": {"process": "poisson", "rate": 0}, "slo": "50ms")"),
       "serving.json: tenants[0].arrival.rate: requests per second must be above 0"},
      {tenant_file(R"("arrival": {"process": "poisson", "rate": -3}, "slo": "50ms")"),
       "tenants[0].arrival.rate"},
      {tenant_file(R"("arrival": {"process": "gamma", "rate": 5, "cv": 0}, "slo": "50ms")"),
       "tenants[0].arrival.cv"},
      {tenant_file(R"("arrival": {"process": "burst", "rate": 5}, "slo": "50ms")"),
       "tenants[0].arrival.process"},
      {tenant_file(poisson + R"("slo": "fast")"), "serving.json: tenants[0].slo"},
      {tenant_file(poisson + R"("slo": "10GB")"), "tenants[0].slo"},
      {tenant_file(poisson + R"("slo": 0)"), "tenants[0].slo: must be a positive duration"},
      {tenant_file(ok + R"(, "batching": {"mode": "dynamic", "max_batch": 0, "max_delay": "1ms"})"),
       "tenants[0].batching.max_batch"},
      {tenant_file(ok + R"(, "batching": {"mode": "dynamic", "max_batch": 4})"), "tenants[0].batching: "},
      {tenant_file(ok + R"(, "batching": {"mode": "dynamic", "max_batch": 4, "max_delay": "soon"})"),
       "tenants[0].batching.max_delay"},
      {tenant_file(ok + R"(, "seq_buckets": [64, 32])"), "seq_buckets[1]: buckets must rise"},
      {tenant_file(R"("arrival": {"process": "trace"}, "slo": "50ms")"), "gives no \"trace\""},
      {tenant_file(ok, R"("trace": "t.csv", )"), "tenants[0].arrival: must be {\"process\": \"trace\"}"},
      {tenant_file(ok + R"(, "sloo": 1)"), "sloo"},
      {tenant_file(ok + R"(, "batching": {"mode": "dynamic", "max_batch": 4, "max_delay": "1ms"},
         "placement": {"plan": "pick.json"})"),
       "tenants[0].placement.plan: a stored plan is one graph's"},
      {tenant_file(ok + R"(, "placement": {"plan": "pick.json", "devices": ["gpu0"]})"),
       "tenants[0].placement.plan: a stored plan brings its own placement"},
      {tenant_file(ok + R"(, "placement": {"plan_id": 2})"), "tenants[0].placement.plan_id: needs plan"},
      {R"({"format": "heterosim-serving", "version": 1, "tenants": []})", "tenants: lists no tenant"},
      {R"({"format": "heterosim-serving", "version": 2, "tenants": []})", "version"},
  };
  for (const auto& c : cases) {
    const std::string& text = c.first;
    const std::string& expected = c.second;
    CAPTURE(text);
    const std::string got = refusal(text);
    CHECK_MESSAGE(got.find(expected) != std::string::npos, got);
  }
  const std::string batch_given = R"({"format": "heterosim-serving", "version": 1, "tenants": [{"name": "b",
    "workload": "bert-base:batch=4", "arrival": {"process": "poisson", "rate": 1}, "slo": "1s"}]})";
  CHECK(refusal(batch_given).find("tenants[0].workload: gives batch=") != std::string::npos);
}

TEST_CASE("a trace's bad lines are refused naming the file, the line and the column") {
  CHECK(trace_refusal("time,tenant\n0,bert\n1ms,bert\n") == "(accepted)");
  const std::pair<std::string, std::string> cases[] = {
      {"", "the trace is empty"},
      {"time,tenant\n", "the trace has a header but no request"},
      {"time,tenant\n0,bert\n0.5,gpt\n", "line 3: tenant: unknown tenant 'gpt'"},
      {"time,tenant\n0,bert\nsoon,bert\n", "line 3: time"},
      {"time,tenant\n1,bert\n0.5,bert\n", "line 3: time: goes back in time"},
      {"time,tenant,seq\n0,bert,-4\n", "line 2: seq"},
      {"time,tenant\n0,bert,7\n", "line 2: has 3 fields"},
      {"time,who\n0,bert\n", "line 1: unknown column 'who'"},
      {"tenant\nbert\n", "needs columns time and tenant"},
  };
  for (const auto& c : cases) {
    const std::string& body = c.first;
    const std::string& expected = c.second;
    CAPTURE(body);
    const std::string got = trace_refusal(body);
    CHECK_MESSAGE(got.find(expected) != std::string::npos, got);
    CHECK_MESSAGE(got.find("hs-serving-trace-test.csv") != std::string::npos, got);
  }
}

TEST_CASE("a tenant's placement and workload are checked against the platform and the registries") {
  const hs::Platform p = hs::load_platform("hetero-server");
  const auto table_refusal = [&](const std::string& body) {
    try {
      const ServingConfig c = parse_serving_config(
          R"({"format": "heterosim-serving", "version": 1, "tenants": [{"name": "t", )" + body + "}]}",
          "s.json");
      EngineServiceTable table(p, c, "evaluator", 0);
    } catch (const hs::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string rest = R"(, "arrival": {"process": "poisson", "rate": 1}, "slo": "1s")";
  CHECK(table_refusal(R"("workload": "bert-base:seq=16", "placement": {"devices": ["gpu9"]})" + rest)
            .find("s.json: tenants[0].placement.devices: no device 'gpu9'") != std::string::npos);
  CHECK(table_refusal(R"("workload": "bert-base:seq=16", "placement": {"policy": "magic"})" + rest)
            .find("tenants[0].placement.policy") != std::string::npos);
  CHECK(table_refusal(R"("workload": "bert-base:seq=16", "placement": {"policy": "eager"})" + rest)
            .find("tenants[0].placement.policy: 'eager' only decides at run time") != std::string::npos);
  CHECK(table_refusal(R"("workload": "graph.json")" + rest).find("tenants[0].workload") != std::string::npos);
  CHECK(table_refusal(R"("workload": "bert-base:seq=16,sqe=3")" + rest).find("tenants[0].workload") !=
        std::string::npos);
  CHECK(table_refusal(
            R"("workload": "bert-base:seq=16", "batching": {"mode": "continuous", "max_batch": 4})" + rest)
            .find("continuous batching needs a decoder") != std::string::npos);
}
