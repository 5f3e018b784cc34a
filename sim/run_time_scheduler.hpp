#pragma once
// The hooks through which the SimGrid replay lets a run-time policy decide (sim/simgrid_dynamic.cpp): what
// the policy may observe of the replay, and the calls it answers. The engine owns this interface, as
// SimGrid owns its plug-in signals; policies (policies/policy.hpp) implement it.
#include "sim/cost_model.hpp"

#include <optional>

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

// One replay's worth of run-time decisions; created by Policy::start for each replay.
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
  // The p-state `op` runs at on `device`, asked as it is dispatched: the nominal state (0) unless a policy
  // trades speed for energy at run time, as heft-dvfs does ahead of time. The energy plugins see it.
  virtual int pstate_for(OpId op, DeviceId device, const ReplayView& view) {
    (void)op, (void)device, (void)view;
    return 0;
  }
};

} // namespace hs
