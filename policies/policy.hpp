#pragma once
// A policy is a plain class, in the style of pagmo's user-defined problems. It plans a whole graph ahead,
// decides at run time inside the SimGrid replay, or both, as StarPU's one `sched_policy` serves every
// policy (a static placement is a decision made early):
//
//   struct MyPolicy {
//     std::string name() const { return "my-policy"; }
//     std::string description() const { return "one line, with its source"; }
//     hs::Plan plan(const hs::PolicyContext& ctx) const;                          // plans ahead, and/or
//     std::unique_ptr<hs::DynamicScheduler> start(const hs::PolicyContext& ctx) const; // decides at run time
//     bool in_comparisons() const { return false; } // optional (default true)
//   };
//   HS_REGISTER_POLICY(MyPolicy)
//
// hs::Policy erases the type (an explicit constructor; the user type is checked at compile time, each
// missing method named); policy_registry() finds policies by name. Adding one needs no engine change.
#include "sim/plan.hpp"
#include "sim/registry.hpp"
#include "sim/run_time_scheduler.hpp"
#include "sim/simgrid_engine.hpp"

#include <concepts>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace hs {

struct PolicyConfig;    // policies/policy_config.hpp
class ScheduleObserver; // policies/schedule_observer.hpp

struct PolicyContext {
  const CostModel& cost;
  std::uint64_t seed = 0;
  std::shared_ptr<const PolicyConfig> config = nullptr; // user parameters per policy (--policy-config)
  // Told the ranks and decisions by list schedulers that can explain themselves (`heterosim explain`);
  // null for everyone else, and the policies then do no extra work.
  ScheduleObserver* observer = nullptr;

  const Graph& graph() const { return cost.graph(); }
  const Platform& platform() const { return cost.platform(); }
};

// What the erasure checks of a user type.
template <class T>
concept PolicyHasName = requires(const T& t) {
  { t.name() } -> std::convertible_to<std::string>;
  { t.description() } -> std::convertible_to<std::string>;
};
template <class T>
concept PlansAhead = requires(const T& t, const PolicyContext& ctx) {
  { t.plan(ctx) } -> std::same_as<Plan>;
};
template <class T>
concept DecidesAtRunTime = requires(const T& t, const PolicyContext& ctx) {
  { t.start(ctx) } -> std::convertible_to<std::unique_ptr<DynamicScheduler>>;
};
// A user type the erasure accepts (the constructor names what is missing when it is not).
template <class T>
concept UserPolicy = std::is_copy_constructible_v<T> && PolicyHasName<T> &&
    (PlansAhead<T> || DecidesAtRunTime<T>);
template <class T>
concept HasInComparisons = requires(const T& t) {
  { t.in_comparisons() } -> std::convertible_to<bool>;
};

class Policy {
public:
  template <class T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, Policy>) explicit Policy(T impl)
      : self_(std::make_shared<Model<T>>(std::move(impl))) {
    static_assert(std::is_copy_constructible_v<T>, "a policy must be copy-constructible");
    static_assert(PolicyHasName<T>,
                  "a policy needs std::string name() const and std::string description() const");
    static_assert(PlansAhead<T> || DecidesAtRunTime<T>,
                  "a policy needs Plan plan(const PolicyContext&) const, "
                  "std::unique_ptr<DynamicScheduler> start(const PolicyContext&) const, or both");
  }

  std::string name() const { return self_->name(); }
  std::string description() const { return self_->description(); }
  // Whether a comparison over every policy (`compare`, the studies) includes it. A policy that only
  // serves graphs a transformation already placed says false.
  bool in_comparisons() const { return self_->in_comparisons(); }
  bool plans_ahead() const { return self_->plans_ahead(); }
  bool decides_at_run_time() const { return self_->decides_at_run_time(); }
  // "static", "run-time" or "hybrid" (both), for listings.
  std::string mode() const;

  // The whole plan; std::logic_error for a policy that only decides at run time.
  Plan plan(const PolicyContext& ctx) const {
    Plan p = self_->plan(ctx);
    if (p.policy.empty()) p.policy = name();
    return p;
  }
  // A fresh scheduler for one replay; std::logic_error for a policy that only plans ahead.
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const { return self_->start(ctx); }

  // The user object, if it is a T (pagmo's extract).
  template <class T> const T* extract() const {
    const auto* model = dynamic_cast<const Model<T>*>(self_.get());
    return model ? &model->impl : nullptr;
  }
  template <class T> bool is() const { return extract<T>() != nullptr; }

private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual bool in_comparisons() const = 0;
    virtual bool plans_ahead() const = 0;
    virtual bool decides_at_run_time() const = 0;
    virtual Plan plan(const PolicyContext& ctx) const = 0;
    virtual std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const = 0;
  };
  template <class T> struct Model final : Concept {
    explicit Model(T x) : impl(std::move(x)) {}
    std::string name() const override { return impl.name(); }
    std::string description() const override { return impl.description(); }
    bool in_comparisons() const override {
      if constexpr (HasInComparisons<T>)
        return impl.in_comparisons();
      else
        return true;
    }
    bool plans_ahead() const override { return PlansAhead<T>; }
    bool decides_at_run_time() const override { return DecidesAtRunTime<T>; }
    Plan plan(const PolicyContext& ctx) const override {
      if constexpr (PlansAhead<T>)
        return impl.plan(ctx);
      else
        throw std::logic_error("policy '" + name() + "' decides at run time only: it has no plan ahead");
    }
    std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const override {
      if constexpr (DecidesAtRunTime<T>)
        return impl.start(ctx);
      else
        throw std::logic_error("policy '" + name() + "' plans ahead only: it has no run-time scheduler");
    }
    T impl;
  };
  std::shared_ptr<const Concept> self_;
};

// Every policy, static, run-time and hybrid, in one namespace.
Registry<Policy>& policy_registry();

// Looks a policy up by name; throws std::invalid_argument naming the nearest and listing the known names.
inline const Policy& policy_by_name(const std::string& name) {
  return policy_registry().get(name);
}
// Every policy name, sorted.
std::vector<std::string> all_policy_names();
// The same without the policies that leave themselves out of comparisons (Policy::in_comparisons).
std::vector<std::string> compared_policy_names();
// The policies that plan ahead (static and hybrid), sorted: what the engines other than the replay run.
std::vector<Policy> planning_policies();

// `policy`'s run-time replay on `ctx`'s cost model (sim/simgrid_engine.hpp), a fresh scheduler per replay.
inline DynamicRun run_simgrid_dynamic(const Policy& policy, const PolicyContext& ctx,
                                      const Scenario& scenario = {}) {
  return run_simgrid_dynamic([&] { return policy.start(ctx); }, policy.name(), ctx.cost, scenario);
}

} // namespace hs

#define HS_REGISTER_POLICY(Type)                                                                             \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_registered_##Type = ::hs::policy_registry().add(::hs::Policy(Type{}));      \
  }
