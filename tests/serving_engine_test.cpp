// The request-level model against the engines it reads: service records are the engine's own figures,
// back-to-back requests add up exactly, and the error against an op-level run of the same requests as one
// graph (every request's ops free to overlap) is measured and bounded.
#include "policies/pareto/stored_plan.hpp"
#include "policies/policy.hpp"
#include "serving/request_simulation.hpp"
#include "serving/service_table.hpp"
#include "serving_support.hpp"
#include "sim/contention_engine.hpp"
#include "sim/graph_builder.hpp"
#include "sim/platform.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

namespace {

using namespace hs::serving;

const char* kConfig = R"({"format": "heterosim-serving", "version": 1, "tenants": [
  {"name": "bert", "workload": "bert-base:seq=32", "arrival": {"process": "poisson", "rate": 1}, "slo": "1s",
   "placement": {"policy": "heft", "devices": ["gpu0"]}},
  {"name": "gpt", "workload": "gpt2-small:seq=32,decode=2", "arrival": {"process": "poisson", "rate": 1},
   "slo": "1s", "placement": {"policy": "heft", "devices": ["gpu0"]}}]})";

// `copies` independent graphs as one, every op pinned to gpu0: what an op-level replay of requests that
// all arrived at once would run.
hs::Graph copies_of(const std::vector<std::string>& specs, bool pin) {
  hs::GraphBuilder b("requests");
  for (std::size_t c = 0; c < specs.size(); ++c) {
    const hs::Graph g = hs::load_workload(specs[c]);
    const int base = b.op_count();
    for (const auto& op : g.ops) {
      hs::Op o = op.without_edges();
      o.name.append("#").append(std::to_string(c));
      if (pin) o.allowed_devices = {"gpu0"};
      b.add(std::move(o));
    }
    for (const auto& t : g.tensors) {
      std::vector<hs::OpId> consumers;
      for (auto id : t.consumers)
        consumers.push_back(id + base);
      b.tensor(t.name + "#" + std::to_string(c), t.bytes, t.producer < 0 ? -1 : t.producer + base, consumers);
    }
  }
  return std::move(b).build();
}

double op_level_makespan(const hs::Platform& p, const std::vector<std::string>& specs, bool pin = true) {
  const hs::Graph g = copies_of(specs, pin);
  const hs::CostModel cost(g, p);
  const hs::PolicyContext ctx{cost, 0, nullptr, nullptr};
  return hs::run_contention(hs::policy_by_name("heft").plan(ctx), cost).makespan;
}

} // namespace

TEST_CASE("serving: back-to-back requests add up, and the op-level run of the same requests is close") {
  const hs::Platform p = hs::load_platform("hetero-server");
  const ServingConfig c = parse_serving_config(kConfig, "serving.json");
  EngineServiceTable table(p, c, "evaluator", 0);
  const double bert1 = table.record(0, ServicePart::Whole, 1, 0).seconds;
  const double gpt1 = table.record(1, ServicePart::Whole, 1, 0).seconds;
  const double bert4 = table.record(0, ServicePart::Whole, 4, 0).seconds;
  CHECK(bert1 > 0);
  CHECK(bert4 > bert1);     // more work
  CHECK(bert4 < 4 * bert1); // but batching amortises weights and launches
  CHECK(table.record(0, ServicePart::Whole, 1, 0).devices == std::vector<std::size_t>{1}); // gpu0 alone

  // Three bert and two gpt requests at t = 0, one at a time on gpu0.
  std::vector<Arrival> at(5);
  for (std::size_t i = 0; i < at.size(); ++i)
    at[i].tenant = i < 3 ? 0 : 1;
  struct Listed final : ArrivalSource {
    std::vector<Arrival> a;
    std::size_t i = 0;
    std::optional<Arrival> next() override { return i < a.size() ? std::optional(a[i++]) : std::nullopt; }
  } arrivals;
  arrivals.a = at;
  const ServingResult r = simulate_serving(c.tenants, table, arrivals, SimulationOptions{});
  const double serial = 3 * bert1 + 2 * gpt1;
  CHECK(r.horizon == doctest::Approx(serial).epsilon(1e-12));
  CHECK(r.devices[1].held == doctest::Approx(serial).epsilon(1e-12));

  const double op_level = op_level_makespan(
      p, {"bert-base:batch=1,seq=32", "bert-base:batch=1,seq=32", "bert-base:batch=1,seq=32",
          "gpt2-small:batch=1,seq=32,decode=2", "gpt2-small:batch=1,seq=32,decode=2"});
  const double error = serial / op_level - 1;
  MESSAGE("5 requests on gpu0: request-level " << serial << " s, op-level " << op_level << " s, error "
                                               << 100 * error << "%");
  // Holding the device for a batch's whole makespan cannot beat the op-level run, which overlaps one
  // request's gaps (launches, transfers) with another's ops; how much it loses is the model's error.
  CHECK(error > -1e-9);
  CHECK(error < 0.25);
}

// `k` copies of one request's plan as one plan: every device and stream runs copy 0's ops, then copy 1's,
// ...: the op-level replay of k requests that arrive together and each follow the plan the tenant serves.
hs::Plan replicated_plan(const hs::Plan& one, int ops, int k, const hs::Platform& p) {
  hs::Plan all = hs::Plan::empty(ops * k, p, "replicated");
  for (std::size_t d = 0; d < one.queues.size(); ++d)
    for (std::size_t s = 0; s < one.queues[d].size(); ++s)
      for (int c = 0; c < k; ++c)
        for (hs::OpId o : one.queues[d][s])
          all.append(o + c * ops, static_cast<hs::DeviceId>(d), static_cast<int>(s),
                     one.pstate[static_cast<std::size_t>(o)]);
  return all;
}

TEST_CASE("serving: a plan over several devices pipelines batches as the op-level replay does") {
  // Unpinned, HEFT spreads a request over the server's devices. Each batch occupies a device only from its
  // first op there to its last, so requests pipeline through the devices; the figure printed is the error
  // against the op-level replay of the same requests, each following the same plan, as one graph.
  const hs::Platform p = hs::load_platform("hetero-server");
  const ServingConfig c = parse_serving_config(R"({"format": "heterosim-serving", "version": 1, "tenants": [
    {"name": "bert", "workload": "bert-base:seq=32", "arrival": {"process": "poisson", "rate": 1}, "slo": "1s"}]})",
                                               "serving.json");
  EngineServiceTable table(p, c, "evaluator", 0);
  const ServiceRecord& one = table.record(0, ServicePart::Whole, 1, 0);
  const hs::Graph g = hs::load_workload("bert-base:batch=1,seq=32");
  const hs::CostModel cost(g, p);
  const hs::Plan plan = hs::policy_by_name("heft").plan(hs::PolicyContext{cost, 0, nullptr, nullptr});
  REQUIRE(hs::run_contention(plan, cost).makespan == one.seconds); // the plan the tenant serves
  for (int k : {2, 4, 8, 16}) {
    std::vector<std::string> specs(static_cast<std::size_t>(k), "bert-base:batch=1,seq=32");
    const hs::Graph all = copies_of(specs, false);
    const hs::CostModel all_cost(all, p);
    const double op_level = hs::run_contention(replicated_plan(plan, g.op_count(), k, p), all_cost).makespan;
    hs::test::AllAtOnce arrivals(k);
    const double request_level = simulate_serving(c.tenants, table, arrivals, SimulationOptions{}).horizon;
    const double error = request_level / op_level - 1;
    MESSAGE(k << " bert requests, HEFT over hetero-server on " << one.devices.size()
              << " devices: request-level " << request_level << " s (held whole: " << k * one.seconds
              << " s), op-level " << op_level << " s, error " << 100 * error << "%");
    CHECK(std::abs(error) < 1e-6);
  }
}

// A record that the test gives, for a plan the tenant's policy would not make (a two-stage pipeline).
struct GivenRecord final : ServiceSource {
  ServiceRecord r;
  const hs::Platform* p = nullptr;
  const ServiceRecord& record(std::size_t, ServicePart, int, int) override { return r; }
  int default_tokens(std::size_t) const override { return 0; }
  std::size_t device_count() const override { return p->devices.size(); }
  std::string device_name(std::size_t d) const override { return p->devices[d].name; }
  double idle_watts(std::size_t) const override { return 0.0; }
  double link_idle_watts() const override { return 0.0; }
  std::string provenance() const override { return "test"; }
};

TEST_CASE("serving: batches of a two-stage pipeline plan overlap as in the op-level replay") {
  // The first half of bert's ops on gpu0, the rest on npu0: request i + 1 enters gpu0 while request i is
  // on npu0. Holding both devices for the makespan would serialise them; the per-device profile does not.
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::Graph g = hs::load_workload("bert-base:batch=1,seq=32,precision=fp16");
  const hs::CostModel cost(g, p);
  std::vector<hs::DeviceId> device(static_cast<std::size_t>(g.op_count()));
  std::vector<double> priority(device.size());
  for (std::size_t o = 0; o < device.size(); ++o) {
    device[o] = *p.find_device(2 * o < device.size() ? "gpu0" : "npu0");
    priority[o] = static_cast<double>(o);
  }
  const hs::Plan plan = hs::plan_from_assignment(g, p, device, priority, "two-stage");
  hs::validate_plan(plan, cost);
  GivenRecord given;
  given.p = &p;
  given.r = service_record_of(hs::run_contention(plan, cost), plan, p, {});
  REQUIRE(given.r.devices.size() == 2);
  const ServingConfig c = parse_serving_config(R"({"format": "heterosim-serving", "version": 1, "tenants": [
    {"name": "bert", "workload": "bert-base:seq=32,precision=fp16", "arrival": {"process": "poisson", "rate": 1}, "slo": "1s"}]})",
                                               "serving.json");
  double worst = 0.0;
  for (int k : {2, 4, 8, 16}) {
    const hs::Graph all = copies_of(
        std::vector<std::string>(static_cast<std::size_t>(k), "bert-base:batch=1,seq=32,precision=fp16"),
        false);
    const hs::CostModel all_cost(all, p);
    const double op_level = hs::run_contention(replicated_plan(plan, g.op_count(), k, p), all_cost).makespan;
    hs::test::AllAtOnce arrivals(k);
    const double request_level = simulate_serving(c.tenants, given, arrivals, SimulationOptions{}).horizon;
    const double error = request_level / op_level - 1;
    worst = std::max(worst, std::abs(error));
    MESSAGE(k << " requests, two-stage gpu0 -> npu0: request-level " << request_level << " s (held whole: "
              << k * given.r.seconds << " s, error " << 100 * (k * given.r.seconds / op_level - 1)
              << "%), op-level " << op_level << " s, error " << 100 * error << "%");
    CHECK(std::abs(error) < 1e-6);                           // measured: 1e-14 relative
    if (k >= 4) CHECK(k * given.r.seconds > 1.1 * op_level); // the case holding whole gets wrong
  }
  MESSAGE("worst error " << 100 * worst << "%");
}

TEST_CASE("serving: a tenant placed by a stored plan is served at that plan's evaluated latency") {
  const hs::Platform p = hs::load_platform("hetero-server");
  const std::string pick = std::string(HS_SOURCE_DIR) + "/fuzz/corpus/stored_plan/pick.json";
  const ServingConfig c = parse_serving_config(R"({"format": "heterosim-serving", "version": 1, "tenants": [
    {"name": "r", "workload": "random:ops=12,precision=fp16,seed=1", "arrival": {"process": "poisson", "rate": 1},
     "slo": "1s", "placement": {"plan": ")" + pick +
                                                   R"("}}]})",
                                               "serving.json");
  EngineServiceTable table(p, c, "evaluator", 0);
  const hs::Graph g = hs::load_workload("random:ops=12,precision=fp16,seed=1");
  const hs::CostModel cost(g, p);
  const auto stored = hs::pareto::load_stored_plan(pick, std::nullopt, cost);
  CHECK(table.record(0, ServicePart::Whole, 1, 0).seconds ==
        hs::run_contention(stored.plan, *stored.cost).makespan);
}
