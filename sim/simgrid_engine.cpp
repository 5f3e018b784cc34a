#include "sim/simgrid_engine.hpp"

#include "sim/host_issue.hpp"
#include "sim/replay_process.hpp"
#include "sim/simgrid_replay_support.hpp"
#include "sim/stream_executor.hpp"
#include "sim/transfer_rule.hpp"

#include <algorithm>
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

struct PendingTransfer {
  TensorId tensor;
  DeviceId from;
  DeviceId to;
  std::vector<OpId> waiters; // consumers on `to`
};

// A static plan's feed: each stream runs its queue in order; an op's outputs are pushed to every device
// that has a consumer as soon as it ends. The replay keeps the DAG in HeteroSim's structures and creates
// each SimGrid activity only when it starts (DESIGN.md: building the whole DAG as s4u activities is
// quadratic in 3.32).
class StaticFeed final : public replay::Feed {
public:
  StaticFeed(const Plan& plan, const CostModel& cost, replay::StreamExecutor& executor)
      : plan_(plan), g_(cost.graph()), executor_(executor), transfers_(executor.transfers()) {
    const auto n = static_cast<std::size_t>(g_.op_count());
    issued_ = host_issue_times(plan, cost.issue_costs(), n);
    missing_inputs_.resize(n);
    ops_left_ = n;
    for (std::size_t o = 0; o < n; ++o)
      missing_inputs_[o] = static_cast<int>(g_.ops[o].inputs.size());
    cursor_.resize(plan.queues.size());
    signal_.resize(plan.queues.size());
    for (std::size_t d = 0; d < plan.queues.size(); ++d) {
      cursor_[d].assign(plan.queues[d].size(), 0);
      signal_[d].assign(plan.queues[d].size(), nullptr);
    }
  }

  void start() {
    if (ops_left_ == 0) transfers_.close();
    std::vector<std::pair<DeviceId, int>> streams;
    for (std::size_t d = 0; d < plan_.queues.size(); ++d)
      for (std::size_t s = 0; s < plan_.queues[d].size(); ++s)
        if (!plan_.queues[d][s].empty()) streams.emplace_back(static_cast<DeviceId>(d), static_cast<int>(s));
    executor_.start(*this, streams);
  }

  Execution finish() {
    if (ops_left_ != 0)
      throw std::runtime_error("the replay stopped with " + std::to_string(ops_left_) +
                               " ops not run (deadlock)");
    return std::move(executor_.finish());
  }

  std::optional<OpId> next(DeviceId d, int s, replay::Waitable& me) override {
    const auto di = static_cast<std::size_t>(d);
    const auto si = static_cast<std::size_t>(s);
    const auto& queue = plan_.queues[di][si];
    if (cursor_[di][si] == queue.size()) return std::nullopt;
    const OpId o = queue[cursor_[di][si]++];
    signal_[di][si] = &me;
    me.wait_for([&] { return missing_inputs_[static_cast<std::size_t>(o)] == 0; });
    return o;
  }
  int pstate(OpId o) const override { return plan_.pstate[static_cast<std::size_t>(o)]; }
  double issued_at(OpId o) const override {
    return issued_.empty() ? 0.0 : issued_[static_cast<std::size_t>(o)];
  }
  void finished(OpId o, DeviceId d, double) override {
    if (--ops_left_ == 0) transfers_.close();
    publish_outputs(o, d);
  }
  void arrived(std::size_t index) override {
    for (OpId c : pending_[index].waiters)
      input_arrived(c);
  }

private:
  void publish_outputs(OpId o, DeviceId dev) {
    // Record every transfer with its waiters before anything can run: input_arrived() and flush() are
    // simcalls.
    std::vector<OpId> local;
    for (TensorId t : g_.op(o).outputs) {
      const auto& consumers = g_.tensor(t).consumers;
      for_each_destination(
          consumers, dev, plan_.device,
          [&](DeviceId to) {
            std::vector<OpId> waiters;
            for (OpId c : consumers)
              if (plan_.device[static_cast<std::size_t>(c)] == to) waiters.push_back(c);
            transfers_.enqueue(t, dev, to, pending_.size());
            pending_.push_back({t, dev, to, std::move(waiters)});
          },
          [&](OpId c) { local.push_back(c); });
    }
    transfers_.flush();
    for (OpId c : local)
      input_arrived(c);
  }

  void input_arrived(OpId c) {
    const auto ci = static_cast<std::size_t>(c);
    if (--missing_inputs_[ci] != 0) return;
    const auto d = static_cast<std::size_t>(plan_.device[ci]);
    const auto s = static_cast<std::size_t>(plan_.stream[ci]);
    // A stream that has not asked for this op yet will find its inputs there when it does.
    if (replay::Waitable* w = signal_[d][s]) w->notify();
  }

  const Plan& plan_;
  const Graph& g_;
  replay::StreamExecutor& executor_;
  replay::Transfers& transfers_;
  std::vector<int> missing_inputs_;
  std::vector<double> issued_; // per op, when the host issued it (empty: no device has an issue overhead)
  std::size_t ops_left_ = 0;
  std::vector<std::vector<std::size_t>> cursor_;       // per device, per stream: the next op's place
  std::vector<std::vector<replay::Waitable*>> signal_; // per device, per stream: its actor's signal
  std::deque<PendingTransfer> pending_;                // deque: references stay valid while it grows
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
  put_vector(out, e.issued);
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
  e.issued = get_vector<double>(bytes, pos);
  return e;
}

namespace replay {

std::string simulate(const Platform& p, const Scenario& scenario,
                     const std::function<void(SimgridPlatform&)>& setup,
                     const std::function<std::string()>& finish,
                     const std::vector<std::pair<DeviceId, DeviceId>>* pairs) {
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
  SimgridPlatform sg = build_simgrid_platform(p, scenario, pairs);
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

namespace {
// The device pairs the plan's transfers join, in a fixed order: the routes the zone needs.
std::vector<std::pair<DeviceId, DeviceId>> transfer_pairs(const Plan& plan, const Graph& g) {
  std::vector<std::pair<DeviceId, DeviceId>> pairs;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    if (tensor.producer < 0) continue;
    const DeviceId from = plan.device[static_cast<std::size_t>(tensor.producer)];
    for (OpId c : tensor.consumers)
      if (const DeviceId to = plan.device[static_cast<std::size_t>(c)]; to != from)
        pairs.emplace_back(from, to);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}
} // namespace

Execution run_simgrid_in_this_process(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  std::unique_ptr<replay::StreamExecutor> executor;
  std::unique_ptr<StaticFeed> feed;
  const auto pairs = transfer_pairs(plan, cost.graph());
  const auto bytes = replay::simulate(
      cost.platform(), scenario,
      [&](SimgridPlatform& sg) {
        executor = std::make_unique<replay::StreamExecutor>(
            cost, sg, scenario.op_time_factors(cost.graph().op_count()));
        feed = std::make_unique<StaticFeed>(plan, cost, *executor);
        feed->start();
      },
      [&] {
        auto out = serialize(feed->finish());
        feed.reset(); // while the Engine still exists: the executor owns SimGrid mutexes
        executor.reset();
        return out;
      },
      &pairs);
  return deserialize(bytes);
}

Execution run_simgrid(const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  validate_plan(plan, cost);
  return deserialize(
      replay::run_in_child([&] { return serialize(run_simgrid_in_this_process(plan, cost, scenario)); }));
}

} // namespace hs
