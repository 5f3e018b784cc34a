#pragma once
// A run-time (dynamic) policy decides inside the SimGrid replay, as ops become ready and devices go idle,
// so it sees actual durations and reacts to interference. Same pagmo-like style as static policies:
//
//   struct MyDynamic {
//     std::string name() const { return "my-dynamic"; }
//     std::string description() const { return "one line, with its source"; }
//     std::unique_ptr<hs::DynamicScheduler> start(const hs::PolicyContext& ctx) const; // per replay
//   };
//   HS_REGISTER_DYNAMIC_POLICY(MyDynamic)
//
// The replay (sim/simgrid_dynamic.cpp) calls the scheduler's hooks (sim/run_time_scheduler.hpp); a new
// dynamic policy needs no engine change. The analytic engine cannot run dynamic policies (it has no run-time
// events).
#include "policies/policy.hpp"
#include "sim/run_time_scheduler.hpp"
#include "sim/simgrid_engine.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hs {

class DynamicPolicy {
public:
  template <class T>
  DynamicPolicy(T impl)
      : self_(std::make_shared<Model<T>>(std::move(impl))) {} // NOLINT: implicit, like pagmo

  std::string name() const { return self_->name(); }
  std::string description() const { return self_->description(); }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const { return self_->start(ctx); }

private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const = 0;
  };
  template <class T> struct Model final : Concept {
    explicit Model(T x) : impl(std::move(x)) {}
    std::string name() const override { return impl.name(); }
    std::string description() const override { return impl.description(); }
    std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const override {
      return impl.start(ctx);
    }
    T impl;
  };
  std::shared_ptr<const Concept> self_;
};

class DynamicPolicyRegistry {
public:
  static DynamicPolicyRegistry& instance();
  bool add(DynamicPolicy p);
  const DynamicPolicy* find(const std::string& name) const;
  std::vector<DynamicPolicy> all() const; // sorted by name

private:
  std::vector<DynamicPolicy> policies_;
};

// Every policy name, static and dynamic, sorted.
std::vector<std::string> all_policy_names();
// The same without the policies that leave themselves out of comparisons (Policy::in_comparisons).
std::vector<std::string> compared_policy_names();

// `policy`'s replay on `ctx`'s cost model (sim/simgrid_engine.hpp), a fresh scheduler from it per replay.
inline DynamicRun run_simgrid_dynamic(const DynamicPolicy& policy, const PolicyContext& ctx,
                                      const Scenario& scenario = {}) {
  return run_simgrid_dynamic([&] { return policy.start(ctx); }, policy.name(), ctx.cost, scenario);
}

} // namespace hs

#define HS_REGISTER_DYNAMIC_POLICY(Type)                                                                     \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_dynamic_registered_##Type =                                                 \
      ::hs::DynamicPolicyRegistry::instance().add(::hs::DynamicPolicy(Type{}));                              \
  }
