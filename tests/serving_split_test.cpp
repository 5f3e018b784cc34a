// Prefill and decode on different devices (DistServe): each request's prefill on the prefill devices, its
// KV cache sent over the route, then continuous batching of decode steps on the decode devices.
#include "cli_support.hpp"
#include "serving/request_simulation.hpp"
#include "serving_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/platform.hpp"

#include <doctest/doctest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace hs::serving;

namespace {

// Two devices: prefills on 0 (2 ms + 1 ms a request), decode steps on 1 (0.5 ms whatever the batch), a KV
// cache of 1 kB a token moved at 1 GB/s after 10 us of latency.
class SplitService final : public ServiceSource {
public:
  const ServiceRecord& record(std::size_t, ServicePart part, int batch, int) override {
    auto& r = cache_[{static_cast<int>(part), batch}];
    const bool prefill = part == ServicePart::Prefill;
    r.seconds = prefill ? 0.002 + 0.001 * batch : 0.0005;
    r.busy = prefill ? std::vector{r.seconds, 0.0} : std::vector{0.0, r.seconds};
    r.dynamic_joules = {0.0, 0.0};
    r.devices = {prefill ? std::size_t{0} : std::size_t{1}};
    return r;
  }
  int default_tokens(std::size_t) const override { return 5; }
  double kv_bytes_per_token(std::size_t) const override { return 1000.0; }
  int default_seq(std::size_t) const override { return 100; }
  double kv_transfer_seconds(std::size_t, double bytes) const override { return 1e-5 + bytes / 1e9; }
  std::size_t device_count() const override { return 2; }
  std::string device_name(std::size_t d) const override { return d ? "decode" : "prefill"; }
  double idle_watts(std::size_t) const override { return 0.0; }
  double link_idle_watts() const override { return 0.0; }
  std::string provenance() const override { return "split test"; }

private:
  std::map<std::pair<int, int>, ServiceRecord> cache_;
};

TenantSpec split_tenant(double rate) {
  TenantSpec t = hs::test::poisson_tenant("llm", rate, 1.0);
  t.batching = {BatchingMode::Continuous, 4, 0.0, 0.0};
  t.prefill_devices = {"prefill"};
  t.decode_devices = {"decode"};
  return t;
}

} // namespace

TEST_CASE("split prefill and decode: every request passes prefill, KV transfer and D decode steps in order") {
  const std::vector<TenantSpec> tenants{split_tenant(400)};
  SplitService service;
  GeneratedArrivals arrivals(tenants, 3, 5000);
  SimulationOptions o;
  std::uint64_t seen = 0;
  const double kv = 1e-5 + 100 * 1000.0 / 1e9; // a prompt of 100 tokens
  o.on_request = [&](const RequestTrace& r) {
    ++seen;
    CHECK(r.start >= r.arrival);
    CHECK(r.prefill_end > r.start);
    CHECK(r.kv_arrived >= r.prefill_end + kv - 1e-12); // after its transfer, perhaps behind others'
    CHECK(r.decode_start >= r.kv_arrived);
    // The decode device runs only this tenant's steps, back to back: 5 steps of 0.5 ms after joining.
    CHECK(r.end == doctest::Approx(r.decode_start + 5 * 0.0005).epsilon(1e-9));
  };
  const ServingResult res = simulate_serving(tenants, service, arrivals, o);
  const TenantStats& s = res.tenants[0];
  CHECK(s.arrived == 5000); // counts balance: each arrival served once
  CHECK(s.served == 5000);
  CHECK(seen == 5000);
  CHECK(s.transfer_sum / 5000 >= kv - 1e-12);
  CHECK(s.decode_queue_sum >= 0);
  // The prefill device holds prefills only, the decode device steps only.
  CHECK(res.devices[0].held == doctest::Approx(res.devices[0].busy));
  CHECK(res.devices[1].held == doctest::Approx(res.devices[1].busy));
  CHECK(res.devices[1].held > 0);
}

TEST_CASE("split prefill and decode: one request takes prefill + KV transfer + D decode steps (engines)") {
  const fs::path dir = hs::test::scratch_dir("serving-split", "one");
  hs::test::write_file(dir / "trace.csv", "time,tenant\n0,llm\n");
  const fs::path config =
      hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
    "trace": "trace.csv", "tenants": [
      {"name": "llm", "workload": "gpt2-small:seq=32,decode=4", "arrival": {"process": "trace"}, "slo": "1s",
       "batching": {"mode": "continuous", "max_batch": 4},
       "placement": {"prefill_devices": ["gpu0"], "decode_devices": ["gpu1"]}}]})");
  const auto r = hs::test::heterosim("serve --platform multi-gpu-node -q --timeline --config " +
                                     config.string() + " --out " + (dir / "out").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const auto report = nlohmann::json::parse(hs::test::slurp(dir / "out" / "serving.json"));
  double prefill = 0, step = 0;
  for (const auto& rec : report["service_records"]) {
    if (rec["batch"] != 1) continue;
    if (rec["part"] == "prefill") {
      prefill = rec["seconds"];
      CHECK(rec["devices_held"] == nlohmann::json::array({"gpu0"}));
    }
    if (rec["part"] == "decode-step") {
      step = rec["seconds"];
      CHECK(rec["devices_held"] == nlohmann::json::array({"gpu1"}));
    }
  }
  REQUIRE(prefill > 0);
  REQUIRE(step > 0);
  // gpt2-small fp32: 2 x 12 layers x 768 x 4 bytes a token, 32 prompt tokens, on the route gpu0 -> gpu1.
  const hs::Platform p = hs::load_platform("multi-gpu-node");
  const double kv =
      hs::transfer_seconds(p, *p.find_device("gpu0"), *p.find_device("gpu1"), 2.0 * 12 * 768 * 4 * 32, -1);
  const auto& t = report["tenants"][0];
  CHECK(t["phases"]["mean_kv_transfer_s"].get<double>() == doctest::Approx(kv).epsilon(1e-12));
  CHECK(t["latency_s"]["max"].get<double>() == doctest::Approx(prefill + kv + 4 * step).epsilon(1e-9));
  CHECK(t["phases"]["mean_decode_queueing_s"].get<double>() == 0);
  CHECK(t["served"] == 1);
  // The timeline shows the request's KV cache in flight, and each pool's batches on its own device.
  const std::string svg = hs::test::slurp(dir / "out" / "timeline.svg");
  const auto count = [&svg](const std::string& what) {
    std::size_t n = 0;
    for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1))
      ++n;
    return n;
  };
  CHECK(count("class=\"kv-transfer\"") == 1);
  CHECK(count("class=\"request\"") == 1);
  CHECK(count("llm prefill of 1 on gpu0") == 1);
  CHECK(count("llm iteration of 1 on gpu1") == 4); // its 4 decode steps
}

TEST_CASE("split prefill and decode: bad placements name the field") {
  const fs::path dir = hs::test::scratch_dir("serving-split", "bad");
  const auto refusal = [&](const std::string& batching, const std::string& placement) {
    const fs::path config =
        hs::test::write_file(dir / "serving.json", R"({"format": "heterosim-serving", "version": 1,
      "tenants": [{"name": "llm", "workload": "gpt2-small:seq=32,decode=4", "arrival": {"process": "poisson", "rate": 5},
       "slo": "1s", "batching": )" + batching + R"(, "placement": )" +
                                                       placement + "}]}");
    return hs::test::heterosim("serve --platform multi-gpu-node -q --force --requests 5 --config " +
                               config.string() + " --out " + (dir / "out").string())
        .output;
  };
  const std::string continuous = R"({"mode": "continuous", "max_batch": 4})";
  CHECK(refusal(continuous, R"({"prefill_devices": ["gpu0"]})")
            .find("placement.prefill_devices: prefill_devices and decode_devices go together") !=
        std::string::npos);
  CHECK(refusal(R"({"mode": "none"})", R"({"prefill_devices": ["gpu0"], "decode_devices": ["gpu1"]})")
            .find("needs continuous batching") != std::string::npos);
  CHECK(refusal(continuous, R"({"prefill_devices": ["gpu0"], "decode_devices": ["gpu9"]})")
            .find("tenants[0].placement.decode_devices: no device 'gpu9'") != std::string::npos);
}
