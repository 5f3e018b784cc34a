#include "sim/simgrid_engine.hpp"

#include "sim/replay_process.hpp"
#include "sim/simgrid_replay_support.hpp"
#include "sim/simgrid_transfers.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

namespace sg4 = simgrid::s4u;

namespace hs {
namespace {

using replay::Waitable;

struct PendingTransfer {
  TensorId tensor;
  DeviceId from;
  DeviceId to;
  std::vector<OpId> waiters; // consumers on `to`
};

// The replay keeps the DAG in HeteroSim's structures and creates each SimGrid activity only when it
// starts (DESIGN.md: building the whole DAG as s4u activities is quadratic in 3.32).
class Replay {
public:
  Replay(const Plan& plan, const CostModel& cost, const SimgridPlatform& sg, std::vector<double> time_factor)
      : plan_(plan), cost_(cost), g_(cost.graph()), sg_(sg), time_factor_(std::move(time_factor)),
        transfers_(g_, cost.platform(), sg, result_.transfers,
                   [this](std::size_t i) { transfer_arrived(i); }) {
    const auto n = static_cast<std::size_t>(g_.op_count());
    missing_inputs_.resize(n);
    ops_left_ = n;
    for (std::size_t o = 0; o < n; ++o)
      missing_inputs_[o] = static_cast<int>(g_.ops[o].inputs.size());
    result_.engine = "simgrid";
    result_.ops.resize(n);
    for (std::size_t d = 0; d < plan.queues.size(); ++d) {
      stream_signal_.emplace_back();
      for (std::size_t s = 0; s < plan.queues[d].size(); ++s)
        stream_signal_.back().push_back(std::make_unique<Waitable>());
    }
  }

  void start() {
    const Platform& p = cost_.platform();
    if (ops_left_ == 0) transfers_.close();
    for (std::size_t d = 0; d < plan_.queues.size(); ++d)
      for (std::size_t s = 0; s < plan_.queues[d].size(); ++s)
        if (!plan_.queues[d][s].empty())
          sg4::Actor::create(p.devices[d].name + "/stream" + std::to_string(s), sg_.hosts[d],
                             [this, d, s] { run_stream(d, s); });
    transfers_.start_actors();
  }

  Execution finish() {
    if (ops_left_ != 0)
      throw std::runtime_error("the replay stopped with " + std::to_string(ops_left_) +
                               " ops not run (deadlock)");
    result_.makespan = sg4::Engine::get_clock();
    replay::collect_energy(sg_, result_);
    sort_transfers(result_.transfers);
    return std::move(result_);
  }

private:
  void run_stream(std::size_t d, std::size_t s) {
    Waitable& me = *stream_signal_[d][s];
    sg4::Host* host = sg_.hosts[d];
    for (OpId o : plan_.queues[d][s]) {
      const auto oi = static_cast<std::size_t>(o);
      me.wait_for([&] { return missing_inputs_[oi] == 0; });
      const int pstate = plan_.pstate[oi];
      if (static_cast<unsigned long>(pstate) != host->get_pstate()) host->set_pstate(pstate);
      result_.ops[oi].start = sg4::Engine::get_clock();
      sg4::this_actor::execute(cost_.op_time(o, static_cast<DeviceId>(d)) * time_factor_[oi] * kNominalSpeed);
      result_.ops[oi].end = sg4::Engine::get_clock();
      if (pstate != 0)
        host->set_pstate(0); // idle time is drawn at the nominal state, as the analytic model assumes
      if (--ops_left_ == 0) transfers_.close();
      publish_outputs(o, static_cast<DeviceId>(d));
    }
  }

  void publish_outputs(OpId o, DeviceId dev) {
    // Record every transfer with its waiters before anything can run: input_arrived() and flush() are
    // simcalls.
    std::vector<OpId> local;
    for (TensorId t : g_.op(o).outputs) {
      const std::size_t first_new = pending_.size();
      for (OpId c : g_.tensor(t).consumers) {
        const DeviceId to = plan_.device[static_cast<std::size_t>(c)];
        if (to == dev) {
          local.push_back(c);
          continue;
        }
        std::size_t i = first_new;
        while (i < pending_.size() && pending_[i].to != to)
          ++i;
        if (i == pending_.size()) pending_.push_back({t, dev, to, {}});
        pending_[i].waiters.push_back(c);
      }
      for (std::size_t i = first_new; i < pending_.size(); ++i)
        transfers_.enqueue(t, dev, pending_[i].to, i);
    }
    transfers_.flush();
    for (OpId c : local)
      input_arrived(c);
  }

  void transfer_arrived(std::size_t index) {
    for (OpId c : pending_[index].waiters)
      input_arrived(c);
  }

  void input_arrived(OpId c) {
    const auto ci = static_cast<std::size_t>(c);
    --missing_inputs_[ci];
    if (missing_inputs_[ci] == 0)
      stream_signal_[static_cast<std::size_t>(plan_.device[ci])][static_cast<std::size_t>(plan_.stream[ci])]
          ->notify();
  }

  const Plan& plan_;
  const CostModel& cost_;
  const Graph& g_;
  const SimgridPlatform& sg_;
  std::vector<double> time_factor_; // scenario noise per op
  std::vector<int> missing_inputs_;
  std::size_t ops_left_ = 0;
  std::vector<std::vector<std::unique_ptr<Waitable>>> stream_signal_;
  std::deque<PendingTransfer> pending_; // deque: references stay valid while it grows
  Execution result_;
  replay::Transfers transfers_; // after result_, which it records into
};

using replay::get;
using replay::get_vector;
using replay::put;
using replay::put_vector;

} // namespace

std::string serialize(const Execution& e) {
  std::string out;
  put(out, e.makespan);
  put_vector(out, e.ops);
  put_vector(out, e.transfers);
  put_vector(out, e.device_energy);
  put_vector(out, e.link_energy);
  return out;
}

Execution deserialize(const std::string& bytes) {
  Execution e;
  e.engine = "simgrid";
  std::size_t pos = 0;
  e.makespan = get<double>(bytes, pos);
  e.ops = get_vector<OpRun>(bytes, pos);
  e.transfers = get_vector<TransferRun>(bytes, pos);
  e.device_energy = get_vector<double>(bytes, pos);
  e.link_energy = get_vector<double>(bytes, pos);
  return e;
}

namespace replay {

std::string simulate(const Platform& p, const Scenario& scenario,
                     const std::function<void(SimgridPlatform&)>& setup,
                     const std::function<std::string()>& finish) {
  int argc = 1;
  char name[] = "heterosim";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thresh:warning");
#ifdef HS_THREAD_CONTEXTS
  // Sanitizer builds: actors as threads, which ASan follows (SimGrid's own stack switching it cannot).
  sg4::Engine::set_config("contexts/factory:thread");
#endif
  configure_exact_network();
  sg_host_energy_plugin_init();
  sg_link_energy_plugin_init();
  SimgridPlatform sg = build_simgrid_platform(p, scenario);
  setup(sg);
  engine.run();
  try {
    return finish();
  } catch (const std::exception& ex) {
    // Actors still blocked (a deadlock) refer to the replay: leave without unwinding through them.
    fail_child(ex.what());
  }
}

void collect_energy(const SimgridPlatform& sg, Execution& e) {
  for (const auto* h : sg.hosts)
    e.device_energy.push_back(sg_host_get_consumed_energy(h));
  for (const auto& halves : sg.links) {
    double joules = 0;
    for (const auto* half : halves)
      joules += sg_link_get_consumed_energy(half);
    e.link_energy.push_back(joules);
  }
}

} // namespace replay

Execution run_simgrid_in_this_process(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  std::unique_ptr<Replay> replay;
  const auto bytes = replay::simulate(
      cost.platform(), scenario,
      [&](SimgridPlatform& sg) {
        replay = std::make_unique<Replay>(plan, cost, sg, scenario.op_time_factors(cost.graph().op_count()));
        replay->start();
      },
      [&] {
        auto out = serialize(replay->finish());
        replay.reset(); // while the Engine still exists: the Replay owns SimGrid mutexes
        return out;
      });
  return deserialize(bytes);
}

Execution run_simgrid(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  validate_plan(plan, cost);
  return deserialize(
      replay::run_in_child([&] { return serialize(run_simgrid_in_this_process(plan, cost, scenario)); }));
}

} // namespace hs
