// One policy concept (pagmo-style erasure) over static, run-time and hybrid policies, and the one registry
// template every plug-in family uses.
#include "policies/policy.hpp"
#include "policies/policy_runner.hpp"
#include "policy_test_support.hpp"
#include "sim/registry.hpp"

#include <doctest/doctest.h>
#include <stdexcept>

using namespace hs;

namespace {

struct PlansOnly {
  std::string name() const { return "test-plans-only"; }
  std::string description() const { return "test"; }
  Plan plan(const PolicyContext& ctx) const { return policy_by_name("fastest-device").plan(ctx); }
};

// Run-time: every op on the last device, taken by whichever of its streams is idle.
class OnLastDevice final : public DynamicScheduler {
public:
  std::optional<DeviceId> on_ready(OpId op, const ReplayView& view) override {
    ready_.push_back(op);
    return view.cost().platform().device_count() - 1;
  }
  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    if (device != view.cost().platform().device_count() - 1 || ready_.empty()) return std::nullopt;
    const OpId op = ready_.front();
    ready_.erase(ready_.begin());
    return op;
  }

private:
  std::vector<OpId> ready_;
};

// The same at the device's second p-state (half speed on cpu_two_gpus' gpus).
class OnLastDeviceSlowly final : public DynamicScheduler {
public:
  std::optional<DeviceId> on_ready(OpId op, const ReplayView& view) override {
    return inner_.on_ready(op, view);
  }
  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    return inner_.on_idle(device, view);
  }
  int pstate_for(OpId, DeviceId, const ReplayView&) override { return state_; }
  explicit OnLastDeviceSlowly(int state) : state_(state) {}

private:
  OnLastDevice inner_;
  int state_;
};

// Both: a plan ahead (everything on the first device) for the in-process engines, and run-time decisions
// (everything on the last device) for the replay; which one ran shows in the plan that comes back.
struct Both {
  int tag = 7;
  std::string name() const { return "test-both"; }
  std::string description() const { return "test"; }
  Plan plan(const PolicyContext& ctx) const {
    Plan p = Plan::empty(ctx.graph().op_count(), ctx.platform(), name());
    for (OpId o : ctx.graph().topological_order())
      p.append(o, 0, 0);
    return p;
  }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext&) const {
    return std::make_unique<OnLastDevice>();
  }
  bool in_comparisons() const { return false; }
};

struct NoMethods {
  std::string name() const { return "x"; }
  std::string description() const { return "x"; }
};

struct Named {
  std::string name;
  int value;
};

} // namespace

TEST_CASE("the policy concept accepts a plan, run-time decisions or both, and names the mode") {
  static_assert(UserPolicy<PlansOnly>);
  static_assert(UserPolicy<Both>);
  static_assert(!UserPolicy<NoMethods>); // neither plan() nor start()
  static_assert(!UserPolicy<int>);
  static_assert(!std::is_convertible_v<PlansOnly, Policy>); // the erasing constructor is explicit

  const Policy plans(PlansOnly{}), both(Both{});
  CHECK(plans.mode() == "static");
  CHECK(both.mode() == "hybrid");
  CHECK(policy_by_name("eager").mode() == "run-time");
  CHECK(plans.in_comparisons());
  CHECK_FALSE(both.in_comparisons());

  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(2, 2);
  const CostModel cost(g, p);
  CHECK_THROWS_AS(plans.start({cost}), std::logic_error);
  CHECK_THROWS_AS(policy_by_name("eager").plan({cost}), std::logic_error);
}

TEST_CASE("extract gives back the user object, and only as its own type") {
  const Policy both(Both{});
  REQUIRE(both.extract<Both>() != nullptr);
  CHECK(both.extract<Both>()->tag == 7);
  CHECK(both.extract<PlansOnly>() == nullptr);
  CHECK(both.is<Both>());
  CHECK_FALSE(policy_by_name("heft").is<Both>());
}

TEST_CASE("a hybrid policy runs its decisions in the replay and its plan in the in-process engines") {
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(2, 2);
  const CostModel cost(g, p);
  REQUIRE(policy_registry().add(Policy(Both{})));
  const PolicyContext ctx{cost};
  const auto replayed = execute_policy("test-both", ctx, {}, "simgrid");
  const auto evaluated = execute_policy("test-both", ctx, {}, "evaluator");
  policy_registry().remove("test-both");
  const DeviceId last = p.device_count() - 1;
  for (OpId o = 0; o < g.op_count(); ++o) {
    CHECK(replayed.plan.device[static_cast<std::size_t>(o)] == last);
    CHECK(evaluated.plan.device[static_cast<std::size_t>(o)] == 0);
  }
  CHECK_FALSE(policy_registry().find("test-both"));
}

TEST_CASE("a registry keeps names sorted, refuses a second registration and suggests the nearest name") {
  Registry<Named> r("widget");
  CHECK(r.add({"beta", 2}));
  CHECK(r.add({"alpha", 1}));
  CHECK(r.names() == std::vector<std::string>{"alpha", "beta"});
  CHECK_THROWS_WITH_AS(r.add({"alpha", 3}), "widget 'alpha' registered twice", std::logic_error);
  CHECK(r.get("alpha").value == 1); // the first stays
  CHECK_THROWS_WITH_AS(r.add({"", 0}), "a widget registered without a name", std::logic_error);
  CHECK_THROWS_WITH_AS(r.get("alpah"), "unknown widget 'alpah' (did you mean 'alpha'?) (known: alpha, beta)",
                       std::invalid_argument);
  CHECK(r.find("gamma") == nullptr);
  CHECK(r.remove("beta"));
  CHECK_FALSE(r.remove("beta"));
  CHECK(r.names() == std::vector<std::string>{"alpha"});
}

TEST_CASE("every policy, static or run-time, is in the one policy registry, under one namespace") {
  CHECK(policy_registry().find("heft")->plans_ahead());
  CHECK(policy_registry().find("dmda")->decides_at_run_time());
  const auto planning = planning_policies();
  CHECK(std::none_of(planning.begin(), planning.end(), [](const Policy& x) { return x.name() == "eager"; }));
  CHECK(std::any_of(planning.begin(), planning.end(), [](const Policy& x) { return x.name() == "heft"; }));
  CHECK_THROWS_AS(policy_registry().add(Policy(PlansOnly{})) && policy_registry().add(Policy(PlansOnly{})),
                  std::logic_error);
  policy_registry().remove("test-plans-only");
}

TEST_CASE(
    "a run-time policy chooses p-states: the replay runs them, records them and refuses a state that does "
    "not exist") {
  const Platform p = test::cpu_two_gpus();
  const Graph g = test::chains(2, 2);
  const CostModel cost(g, p);
  const auto run_at = [&](int state) {
    return run_simgrid_dynamic([state] { return std::make_unique<OnLastDeviceSlowly>(state); }, "slow", cost);
  };
  const DynamicRun nominal = run_at(0), slow = run_at(1);
  const DeviceId last = p.device_count() - 1;
  for (OpId o = 0; o < g.op_count(); ++o) {
    const auto oi = static_cast<std::size_t>(o);
    CHECK(slow.plan.pstate[oi] == 1);
    CHECK(nominal.plan.pstate[oi] == 0);
    const double nominal_seconds = nominal.execution.ops[oi].end - nominal.execution.ops[oi].start;
    const double slow_seconds = slow.execution.ops[oi].end - slow.execution.ops[oi].start;
    CHECK(slow_seconds == doctest::Approx(2 * nominal_seconds).epsilon(1e-9)); // speed 0.5
    CHECK(nominal_seconds == doctest::Approx(cost.op_time(o, last)).epsilon(1e-9));
  }
  // 40 W busy at half speed against 110 W at full: the slow run draws less on the gpu.
  CHECK(slow.execution.device_energy[static_cast<std::size_t>(last)] <
        nominal.execution.device_energy[static_cast<std::size_t>(last)]);
  CHECK_THROWS_AS(run_at(2), std::runtime_error);
}
