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
// The replay (sim/simgrid_dynamic.cpp) calls the scheduler's hooks; a new dynamic policy needs no engine
// change. The analytic engine cannot run dynamic policies (it has no run-time events).
#include "policies/policy.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// What a run-time policy may observe of the replay at the moment a hook is called.
class ReplayView {
public:
  virtual ~ReplayView() = default;
  virtual double now() const = 0;
  virtual const CostModel& cost() const = 0;
  // Device an op was dispatched to, or -1 if it has not been dispatched yet.
  virtual DeviceId device_of(OpId op) const = 0;
  // True when `tensor` is on `device` or already on its way there.
  virtual bool holds(TensorId tensor, DeviceId device) const = 0;
  // Streams of `device` that are running an op or waiting for its inputs.
  virtual int busy_streams(DeviceId device) const = 0;
  // Nominal (cost model) seconds still expected for the ops running on `device`, summed over its streams.
  virtual double expected_remaining(DeviceId device) const = 0;

  // Nominal seconds to bring `op`'s inputs to `device` from where they were produced (0 if held there).
  double input_transfer_time(OpId op, DeviceId device) const;
};

// One replay's worth of run-time decisions; created by DynamicPolicy::start for each replay.
class DynamicScheduler {
public:
  virtual ~DynamicScheduler() = default;
  // `op`'s predecessors have all finished. Return the device it is now committed to, if the policy has
  // decided (the replay then starts moving its inputs there), or nullopt to decide later.
  virtual std::optional<DeviceId> on_ready(OpId op, const ReplayView& view) = 0;
  // A stream of `device` is idle: return the op it should run now (ready, and runnable there), if any.
  virtual std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) = 0;
  // `op` has finished on `device` after `seconds` of execution (what actually happened, interference and
  // noise included): policies that learn device speeds, as StarPU's history-based models do, listen here.
  virtual void on_finished(OpId op, DeviceId device, double seconds, const ReplayView& view) {
    (void)op, (void)device, (void)seconds, (void)view;
  }
};

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

} // namespace hs

#define HS_REGISTER_DYNAMIC_POLICY(Type)                                                                     \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_dynamic_registered_##Type =                                                 \
      ::hs::DynamicPolicyRegistry::instance().add(::hs::DynamicPolicy(Type{}));                              \
  }
