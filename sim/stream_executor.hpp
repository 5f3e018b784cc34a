#pragma once
// The one replay core: an actor per device stream runs ops on its SimGrid host, one after another, at the
// p-state it is given; copy engines move tensors (sim/simgrid_transfers.hpp). A Feed says which op a stream
// runs next and what finishing one sets off, so the two ways of deciding share everything else:
// - a static plan (sim/simgrid_engine.cpp) feeds each stream its queue and pushes each output to its
//   consumers' devices as soon as it is produced: what the evaluator models exactly;
// - a run-time policy (sim/simgrid_dynamic.cpp) feeds the streams its decisions and pulls an op's inputs
//   when it commits the op to a device.
// Internal to the engine.
#include "sim/execution.hpp"
#include "sim/simgrid_platform.hpp"
#include "sim/simgrid_replay_support.hpp"
#include "sim/simgrid_transfers.hpp"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace hs::replay {

class Feed {
public:
  virtual ~Feed() = default;
  // The op stream `stream` of `device` runs next, once its inputs are on the device (the feed waits on
  // `me`, which it may hand to whoever delivers them); nullopt when the stream has no more work.
  virtual std::optional<OpId> next(DeviceId device, int stream, Waitable& me) = 0;
  virtual int pstate(OpId op) const = 0;
  // When the host has issued `op` (sim/host_issue.hpp), asked once the stream has it: the op starts no
  // earlier.
  virtual double issued_at(OpId op) const = 0;
  // `op` has ended on `device` after `seconds` of execution.
  virtual void finished(OpId op, DeviceId device, double seconds) = 0;
  // The transfer queued with `token` has arrived.
  virtual void arrived(std::size_t token) = 0;
};

class StreamExecutor {
public:
  StreamExecutor(const CostModel& cost, const SimgridPlatform& sg, std::vector<double> time_factor);

  // Starts an actor for each (device, stream), in this order, then the copy engines. `feed` must outlive
  // the simulation.
  void start(Feed& feed, const std::vector<std::pair<DeviceId, int>>& streams);
  Transfers& transfers() { return transfers_; }
  // Makespan, energy and the transfers in canonical order; the op records are filled as ops run.
  Execution& finish();

private:
  struct Completion {
    DeviceId device;
    int stream;
    OpId op;
    double seconds;
  };
  void run_stream(DeviceId device, int stream, Waitable& me);
  // Hands the feed the ops that ended at this instant, in (device, stream) order.
  void publish_completions();

  const CostModel& cost_;
  const SimgridPlatform& sg_;
  std::vector<double> time_factor_; // scenario noise per op
  Feed* feed_ = nullptr;
  std::vector<std::unique_ptr<Waitable>> signals_; // one per stream actor
  Execution result_;
  Transfers transfers_;               // after result_, which it records into
  std::vector<Completion> completed_; // ended at this instant, not yet handed to the feed
};

} // namespace hs::replay
