#pragma once
// A policy is a plain class with three methods, in the style of pagmo's user-defined problems:
//
//   struct MyPolicy {
//     std::string name() const { return "my-policy"; }
//     std::string description() const { return "one line, with its source"; }
//     hs::Plan plan(const hs::PolicyContext& ctx) const;
//   };
//   HS_REGISTER_POLICY(MyPolicy)
//
// hs::Policy erases the type; the registry finds policies by name. Adding one needs no engine change.
#include "sim/plan.hpp"

#include <cstdint>
#include <memory>
#include <string>
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

class Policy {
public:
  template <class T>
  Policy(T impl)
      : self_(std::make_shared<Model<T>>(std::move(impl))) {} // NOLINT: implicit on purpose, like pagmo

  std::string name() const { return self_->name(); }
  std::string description() const { return self_->description(); }
  // Optional in the user type (default true): whether a comparison over every policy (`compare`, the
  // studies) includes it. A policy that only serves graphs a transformation already placed says false.
  bool in_comparisons() const { return self_->in_comparisons(); }
  Plan plan(const PolicyContext& ctx) const {
    Plan p = self_->plan(ctx);
    if (p.policy.empty()) p.policy = name();
    return p;
  }

private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual Plan plan(const PolicyContext& ctx) const = 0;
    virtual bool in_comparisons() const = 0;
  };
  template <class T> struct Model final : Concept {
    explicit Model(T x) : impl(std::move(x)) {}
    std::string name() const override { return impl.name(); }
    std::string description() const override { return impl.description(); }
    Plan plan(const PolicyContext& ctx) const override { return impl.plan(ctx); }
    bool in_comparisons() const override {
      if constexpr (requires { impl.in_comparisons(); })
        return impl.in_comparisons();
      else
        return true;
    }
    T impl;
  };
  std::shared_ptr<const Concept> self_;
};

class PolicyRegistry {
public:
  static PolicyRegistry& instance();
  bool add(Policy p);
  const Policy* find(const std::string& name) const;
  std::vector<Policy> all() const; // sorted by name
  std::vector<std::string> names() const;

private:
  std::vector<Policy> policies_;
};

// Looks a policy up by name; throws std::invalid_argument listing the known names otherwise.
const Policy& policy_by_name(const std::string& name);

} // namespace hs

#define HS_REGISTER_POLICY(Type)                                                                             \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_registered_##Type =                                                         \
      ::hs::PolicyRegistry::instance().add(::hs::Policy(Type{}));                                            \
  }
