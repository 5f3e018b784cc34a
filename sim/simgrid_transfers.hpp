#pragma once
// How both replays move tensors: each device's outgoing copy engines (actors) take queued transfers in
// order; each transfer then takes one of its destination's incoming copy engines (a FIFO semaphore) and is
// sent as a SimGrid communication, so transfers share link bandwidth and queue for the engines at both
// ends. A transfer's recorded start is when it holds both engines.
// Textbook edges with an explicit cost bypass the copy engines, as in the textbook model they come from:
// each sleeps its stated time in an actor of its own, with no limit on how many overlap.
// Internal to the engine.
#include "sim/execution.hpp"
#include "sim/simgrid_platform.hpp"
#include "sim/simgrid_replay_support.hpp"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace hs::replay {

class Transfers {
public:
  // `arrived(token, run)` runs in the actor that completed the transfer, after `run` is recorded.
  using Arrived = std::function<void(std::size_t token)>;

  Transfers(const Graph& g, const Platform& p, const SimgridPlatform& sg, std::vector<TransferRun>& record,
            Arrived arrived);

  void start_actors();
  // Queues a transfer; nothing runs until flush(), so callers can finish updating their state first
  // (waking an actor is a simcall, during which other actors run).
  void enqueue(TensorId t, DeviceId from, DeviceId to, std::size_t token);
  void flush();
  // No more transfers will be queued: copy engines leave once their queue is empty (or at once if
  // `drop_queued`, for prefetches nobody will use).
  void close(bool drop_queued = false);

private:
  struct Pending {
    TensorId tensor;
    DeviceId from;
    DeviceId to;
    std::size_t token;
  };
  struct Queue {
    Waitable signal;
    std::deque<Pending> pending;
    bool closed = false;
    bool dirty = false;
  };
  void run_copy_engine(std::size_t device);
  void transfer(const Pending& t);

  const Graph& g_;
  const Platform& p_;
  const SimgridPlatform& sg_;
  std::vector<TransferRun>& record_;
  Arrived arrived_;
  std::vector<std::unique_ptr<Queue>> queues_; // per source device
  // The source devices enqueue() gave work since the last flush(): scanning every device's queue per
  // finished op was quadratic on a cluster.
  std::vector<std::size_t> dirty_;
  std::vector<simgrid::s4u::SemaphorePtr> incoming_; // per destination device: its free incoming engines
  std::vector<Pending> explicit_cost_;               // textbook edges waiting for flush()
};

} // namespace hs::replay
