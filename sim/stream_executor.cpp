#include "sim/stream_executor.hpp"

#include <algorithm>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace hs::replay {

StreamExecutor::StreamExecutor(const CostModel& cost, const SimgridPlatform& sg,
                               std::vector<double> time_factor)
    : cost_(cost), sg_(sg), time_factor_(std::move(time_factor)),
      transfers_(cost.graph(), cost.platform(), sg, result_.transfers,
                 [this](std::size_t token) { feed_->arrived(token); }) {
  result_.engine = "simgrid";
  result_.ops.resize(static_cast<std::size_t>(cost.graph().op_count()));
}

void StreamExecutor::start(Feed& feed, const std::vector<std::pair<DeviceId, int>>& streams) {
  feed_ = &feed;
  const Platform& p = cost_.platform();
  for (const auto& [device, stream] : streams) {
    signals_.push_back(std::make_unique<Waitable>());
    Waitable& me = *signals_.back();
    const DeviceId d = device;
    const int s = stream;
    sg4::Actor::create(p.devices[static_cast<std::size_t>(d)].name + "/stream" + std::to_string(s),
                       sg_.hosts[static_cast<std::size_t>(d)], [this, d, s, &me] { run_stream(d, s, me); });
  }
  transfers_.start_actors();
}

void StreamExecutor::run_stream(DeviceId d, int s, Waitable& me) {
  sg4::Host* host = sg_.hosts[static_cast<std::size_t>(d)];
  while (const auto next = feed_->next(d, s, me)) {
    const OpId o = *next;
    const auto oi = static_cast<std::size_t>(o);
    const int pstate = feed_->pstate(o);
    if (static_cast<unsigned long>(pstate) != host->get_pstate()) host->set_pstate(pstate);
    if (const double issued = feed_->issued_at(o); issued > 0.0) {
      if (result_.issued.empty()) result_.issued.assign(result_.ops.size(), 0.0);
      result_.issued[oi] = issued;
      if (issued > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(issued);
    }
    OpRun& run = result_.ops[oi];
    run.start = sg4::Engine::get_clock();
    sg4::this_actor::execute(cost_.op_time(o, d) * time_factor_[oi] * kNominalSpeed);
    run.end = sg4::Engine::get_clock();
    if (pstate != 0)
      host->set_pstate(0); // idle time is drawn at the nominal state, as the analytic model assumes
    // Ops that end at one instant set off their transfers in (device, stream) order, as the evaluator ends
    // them, not in the order SimGrid wakes their actors: the order transfers queue for a copy engine is
    // part of the result. Every actor woken at this instant runs before any resumes from the yield, and
    // the first to resume hands them all over; by then the transfers ending at this instant have arrived,
    // as the evaluator completes transfers before ops.
    completed_.push_back({d, s, o, run.end - run.start});
    sg4::this_actor::yield();
    publish_completions();
  }
}

void StreamExecutor::publish_completions() {
  if (completed_.empty()) return;
  // Taken first: a feed's simcalls let other actors run, and those may end ops of their own.
  std::vector<Completion> batch = std::move(completed_);
  completed_.clear();
  std::sort(batch.begin(), batch.end(), [](const Completion& a, const Completion& b) {
    return a.device != b.device ? a.device < b.device : a.stream < b.stream;
  });
  for (const Completion& c : batch)
    feed_->finished(c.op, c.device, c.seconds);
}

Execution& StreamExecutor::finish() {
  result_.makespan = sg4::Engine::get_clock();
  collect_energy(sg_, result_);
  sort_transfers(result_.transfers);
  return result_;
}

} // namespace hs::replay
