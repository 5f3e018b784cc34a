#include "sim/simgrid_transfers.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace sg4 = simgrid::s4u;

namespace hs::replay {

Transfers::Transfers(const Graph& g, const Platform& p, const SimgridPlatform& sg,
                     std::vector<TransferRun>& record, Arrived arrived)
    : g_(g), p_(p), sg_(sg), record_(record), arrived_(std::move(arrived)) {
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    queues_.push_back(std::make_unique<Queue>());
    incoming_.push_back(sg4::Semaphore::create(static_cast<unsigned>(p.devices[d].copy_engines)));
  }
}

void Transfers::start_actors() {
  for (std::size_t d = 0; d < p_.devices.size(); ++d)
    for (int c = 0; c < p_.devices[d].copy_engines; ++c)
      sg4::Actor::create(p_.devices[d].name + "/copy" + std::to_string(c), sg_.hosts[d],
                         [this, d] { run_copy_engine(d); });
}

void Transfers::enqueue(TensorId t, DeviceId from, DeviceId to, std::size_t token) {
  if (g_.tensor(t).comm_time) {
    explicit_cost_.push_back({t, from, to, token});
    return;
  }
  Queue& q = *queues_[static_cast<std::size_t>(from)];
  q.pending.push_back({t, from, to, token});
  if (!q.dirty) dirty_.push_back(static_cast<std::size_t>(from));
  q.dirty = true;
}

void Transfers::flush() {
  // Take the lists first: creating an actor or notifying lets other actors run, and they may enqueue more.
  auto textbook = std::move(explicit_cost_);
  explicit_cost_.clear();
  // Woken in device order, as a scan of every queue would: the order actors run in at one instant is part
  // of the replay's result.
  std::vector<std::size_t> dirty = std::move(dirty_);
  dirty_.clear();
  std::sort(dirty.begin(), dirty.end());
  for (std::size_t d : dirty)
    queues_[d]->dirty = false;
  for (const Pending& t : textbook)
    sg4::Actor::create("edge/" + g_.tensor(t.tensor).name, sg_.hosts[static_cast<std::size_t>(t.from)],
                       [this, t] { transfer(t); });
  for (std::size_t d : dirty)
    queues_[d]->signal.notify();
}

void Transfers::close(bool drop_queued) {
  for (auto& q : queues_) {
    q->closed = true;
    if (drop_queued) q->pending.clear();
    q->signal.notify();
  }
}

void Transfers::transfer(const Pending& t) {
  const Tensor& tensor = g_.tensor(t.tensor);
  TransferRun run{t.tensor, t.from, t.to, tensor.bytes, 0.0, 0.0};
  if (tensor.comm_time) {
    run.start = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(*tensor.comm_time);
  } else {
    const auto& incoming = incoming_[static_cast<std::size_t>(t.to)];
    incoming->acquire();
    run.start = sg4::Engine::get_clock();
    sg4::Comm::sendto(sg_.hosts[static_cast<std::size_t>(t.from)], sg_.hosts[static_cast<std::size_t>(t.to)],
                      static_cast<uint64_t>(tensor.bytes));
    incoming->release();
  }
  run.end = sg4::Engine::get_clock();
  record_.push_back(run);
  arrived_(t.token);
}

void Transfers::run_copy_engine(std::size_t device) {
  Queue& q = *queues_[device];
  for (;;) {
    std::optional<Pending> next;
    q.signal.take_when([&] { return !q.pending.empty() || q.closed; },
                       [&] {
                         if (q.pending.empty()) return; // closed
                         next = q.pending.front();
                         q.pending.pop_front();
                       });
    if (!next) return; // copy engines are ordinary actors that leave once closed, not daemons (see DESIGN)
    transfer(*next);
  }
}

} // namespace hs::replay
