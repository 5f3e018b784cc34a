// vLLM-style paging of the KV cache under a budget (batching.kv_policy "paged"): a request holds the cache of
// its context; a step that would exceed the budget preempts the newest request, which recomputes its
// context in a prefill when it rejoins. Hand-made known answers against the reserving policy (Orca's).
#include "serving/request_simulation.hpp"
#include "serving_support.hpp"
#include "sim/error.hpp"

#include <doctest/doctest.h>
#include <map>

using namespace hs::serving;

namespace {

// One device; prefill 1 ms whatever its size and shape, decode step 0.5 ms; 1 byte of KV cache a token,
// prompts of 10 tokens, 5 tokens generated.
class KvService final : public ServiceSource {
public:
  const ServiceRecord& record(std::size_t, ServicePart part, int batch, int seq) override {
    shapes.emplace_back(part, seq);
    auto& r = cache_[{static_cast<int>(part), batch}];
    r.seconds = part == ServicePart::Prefill ? 0.001 : 0.0005;
    r.busy = {r.seconds};
    r.dynamic_joules = {0.0};
    r.devices = {0};
    return r;
  }
  int default_tokens(std::size_t) const override { return 5; }
  double kv_bytes_per_token(std::size_t) const override { return 1.0; }
  int default_seq(std::size_t) const override { return 10; }
  std::size_t device_count() const override { return 1; }
  std::string device_name(std::size_t) const override { return "dev"; }
  double idle_watts(std::size_t) const override { return 0.0; }
  double link_idle_watts() const override { return 0.0; }
  std::string provenance() const override { return "kv test"; }
  std::vector<std::pair<ServicePart, int>> shapes; // every record asked for

private:
  std::map<std::pair<int, int>, ServiceRecord> cache_;
};

struct Run {
  ServingResult result;
  std::vector<double> ends; // by request id
  std::vector<std::pair<ServicePart, int>> shapes;
};

Run two_requests(bool paged, double budget) {
  TenantSpec t = hs::test::poisson_tenant("llm", 1.0, 1.0);
  t.batching = {BatchingMode::Continuous, 4, 0.0, budget, paged};
  const std::vector<TenantSpec> tenants{t};
  KvService service;
  hs::test::AllAtOnce arrivals(2);
  SimulationOptions o;
  Run run;
  run.ends.resize(2);
  o.on_request = [&](const RequestTrace& r) { run.ends[r.id] = r.end; };
  run.result = simulate_serving(tenants, service, arrivals, o);
  run.shapes = service.shapes;
  return run;
}

} // namespace

TEST_CASE("KV paging: the newest request is preempted when a step would exceed the budget, then recomputed") {
  // Budget 25 bytes. Reserving, each request holds 10 + 5 = 15: one at a time, 1 + 5 x 0.5 ms each.
  const Run reserve = two_requests(false, 25);
  CHECK(reserve.ends[0] == doctest::Approx(0.0035));
  CHECK(reserve.ends[1] == doctest::Approx(0.0070));
  CHECK(reserve.result.tenants[0].largest_batch == 1);
  // Paged: request 0 starts alone at 0 (prefill and a step, 1.5 ms: 11 bytes); request 1 joins the second
  // iteration (12 + 11 bytes after it), both step at 3 ms (13 + 12 = 25); the next step would need 14 + 13 =
  // 27, so request 1, the newest, is preempted after 2 tokens; request 0 ends after two more steps, at 4.5
  // ms (15 + 13 would not fit, so request 1 waits); request 1 rejoins with a prefill over 10 + 2 tokens and
  // takes its last 3 steps.
  const Run paged = two_requests(true, 25);
  CHECK(paged.ends[0] == doctest::Approx(0.0015 + 0.0015 + 3 * 0.0005));
  CHECK(paged.ends[1] == doctest::Approx(0.0045 + 0.001 + 3 * 0.0005));
  const TenantStats& s = paged.result.tenants[0];
  CHECK(s.served == 2);
  CHECK(s.kv_preemptions == 1);
  CHECK(s.kv_recomputed_tokens == 12);
  CHECK(s.kv_peak == 25); // never above the budget
  CHECK(s.largest_batch == 2);
  // The recomputing prefill runs at the request's context, 12 tokens.
  CHECK(std::count(paged.shapes.begin(), paged.shapes.end(), std::pair{ServicePart::Prefill, 12}) >= 1);
  // With room for both whole caches nothing is preempted: request 1 joins at 1.5 ms and steps on.
  const Run roomy = two_requests(true, 30);
  CHECK(roomy.result.tenants[0].kv_preemptions == 0);
  CHECK(roomy.ends[0] == doctest::Approx(0.0045));
  CHECK(roomy.ends[1] == doctest::Approx(0.0015 + 0.0015 + 4 * 0.0005));
}

TEST_CASE("KV paging: kv_policy must be reserve or paged, and needs kv_memory") {
  const auto refusal = [](const std::string& batching) {
    try {
      (void)parse_serving_config(R"({"format": "heterosim-serving", "version": 1, "tenants": [{"name": "g",
        "workload": "gpt2-small", "arrival": {"process": "poisson", "rate": 1}, "slo": "1s",
        "batching": )" + batching + "}]}",
                                 "s.json");
    } catch (const hs::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal(R"({"mode": "continuous", "max_batch": 4, "kv_policy": "paged"})")
            .find("s.json: tenants[0].batching.kv_policy: needs kv_memory") != std::string::npos);
  CHECK(refusal(R"({"mode": "continuous", "max_batch": 4, "kv_memory": "1GB", "kv_policy": "lru"})")
            .find("must be reserve or paged") != std::string::npos);
  CHECK(refusal(R"({"mode": "continuous", "max_batch": 4, "kv_memory": "1GB", "kv_policy": "paged"})") ==
        "accepted");
}
