// The replay of a run-time policy: one actor per device stream asks the policy for work whenever it is
// idle; ops become ready when their predecessors finish; inputs are pulled from their producer's device
// when an op is dispatched (or earlier, when the policy commits it to a device: prefetch).
#include "sim/replay_process.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/simgrid_replay_support.hpp"
#include "sim/simgrid_transfers.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

namespace sg4 = simgrid::s4u;

namespace hs {
namespace {

using replay::Waitable;

struct Copy {
  DeviceId device;
  bool arrived;
  std::vector<OpId> waiters; // dispatched consumers on `device` waiting for it
};

struct Request {
  TensorId tensor;
  DeviceId to;
};

class DynamicReplay final : public ReplayView {
public:
  DynamicReplay(std::unique_ptr<DynamicScheduler> scheduler, const CostModel& cost, const SimgridPlatform& sg,
                std::vector<double> time_factor)
      : scheduler_(std::move(scheduler)), cost_(cost), g_(cost.graph()), sg_(sg),
        time_factor_(std::move(time_factor)), transfers_(g_, cost.platform(), sg, result_.transfers,
                                                         [this](std::size_t i) { transfer_arrived(i); }) {
    const auto n = static_cast<std::size_t>(g_.op_count());
    const Platform& p = cost.platform();
    placed_.assign(n, -1);
    stream_of_.assign(n, -1);
    started_.assign(n, -1.0);
    missing_inputs_.assign(n, 0);
    input_signal_.assign(n, nullptr);
    preds_left_.resize(n);
    for (std::size_t o = 0; o < n; ++o)
      preds_left_[o] = static_cast<int>(g_.predecessors(static_cast<OpId>(o)).size());
    copies_.resize(static_cast<std::size_t>(g_.tensor_count()));
    running_.resize(p.devices.size());
    ops_left_ = n;
    result_.engine = "simgrid";
    result_.ops.resize(n);
    for (const auto& d : p.devices) {
      stream_signal_.emplace_back();
      for (int s = 0; s < d.streams; ++s)
        stream_signal_.back().push_back(std::make_unique<Waitable>());
    }
  }

  void start() {
    const Platform& p = cost_.platform();
    for (OpId o = 0; o < g_.op_count(); ++o)
      if (preds_left_[static_cast<std::size_t>(o)] == 0) became_ready(o);
    if (ops_left_ == 0) transfers_.close(true);
    for (std::size_t d = 0; d < p.devices.size(); ++d)
      for (int s = 0; s < p.devices[d].streams; ++s)
        sg4::Actor::create(p.devices[d].name + "/stream" + std::to_string(s), sg_.hosts[d],
                           [this, d, s] { run_stream(static_cast<DeviceId>(d), s); });
    transfers_.start_actors();
  }

  std::string finish() {
    if (!error_.empty()) throw std::runtime_error(error_);
    if (ops_left_ != 0)
      throw std::runtime_error("the run-time policy left " + std::to_string(ops_left_) +
                               " ops unscheduled (no idle device accepted them)");
    result_.makespan = sg4::Engine::get_clock();
    replay::collect_energy(sg_, result_);
    sort_transfers(result_.transfers);
    std::string out = serialize(result_);
    replay::put_vector(out, placed_);
    replay::put_vector(out, stream_of_);
    replay::put_vector(out, dispatch_order_);
    return out;
  }

  // --- ReplayView ---
  double now() const override { return sg4::Engine::get_clock(); }
  const CostModel& cost() const override { return cost_; }
  DeviceId device_of(OpId op) const override { return placed_[static_cast<std::size_t>(op)]; }
  bool holds(TensorId t, DeviceId d) const override {
    const auto& c = copies_[static_cast<std::size_t>(t)];
    return std::any_of(c.begin(), c.end(), [&](const Copy& x) { return x.device == d; });
  }
  int busy_streams(DeviceId d) const override {
    return static_cast<int>(running_[static_cast<std::size_t>(d)].size());
  }
  double expected_remaining(DeviceId d) const override {
    double sum = 0;
    for (OpId o : running_[static_cast<std::size_t>(d)]) {
      const double t = cost_.op_time(o, d);
      const double begun = started_[static_cast<std::size_t>(o)];
      sum += begun < 0 ? t : std::max(0.0, begun + t - now());
    }
    return sum;
  }

private:
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    ops_left_ = 0; // every actor leaves
    wake_idle_streams();
    transfers_.close(true);
  }

  void became_ready(OpId o) {
    if (auto dev = scheduler_->on_ready(o, *this)) {
      if (!cost_.feasible(o, *dev))
        return fail("the run-time policy committed op '" + g_.op(o).name +
                    "' to a device that cannot run it");
      request_inputs(o, *dev, false);
    }
  }

  // Makes sure each input of `o` is on `dev` or on its way; registers `o` as waiting when `wait`.
  void request_inputs(OpId o, DeviceId dev, bool wait) {
    for (TensorId t : g_.op(o).inputs) {
      auto& copies = copies_[static_cast<std::size_t>(t)];
      auto it = std::find_if(copies.begin(), copies.end(), [&](const Copy& c) { return c.device == dev; });
      if (it == copies.end()) {
        const DeviceId from = placed_[static_cast<std::size_t>(g_.tensor(t).producer)];
        copies.push_back({dev, false, {}});
        it = std::prev(copies.end());
        transfers_.enqueue(t, from, dev, requests_.size());
        requests_.push_back({t, dev});
      }
      if (wait && !it->arrived) {
        it->waiters.push_back(o);
        ++missing_inputs_[static_cast<std::size_t>(o)];
      }
    }
    // Only now: waking copy engines lets other actors run, and they may change `copies_`.
    transfers_.flush();
  }

  std::optional<OpId> next_op(DeviceId d) {
    for (;;) {
      if (ops_left_ == 0) return std::nullopt;
      const auto seen = wake_generation_;
      if (auto op = scheduler_->on_idle(d, *this)) return op;
      // Anything that happened since `seen` may have made work for this device: then ask again.
      idle_.wait_for([&] { return wake_generation_ != seen; });
    }
  }

  void run_stream(DeviceId d, int s) {
    const auto di = static_cast<std::size_t>(d);
    Waitable& me = *stream_signal_[di][static_cast<std::size_t>(s)];
    while (auto next = next_op(d)) {
      const OpId o = *next;
      const auto oi = static_cast<std::size_t>(o);
      if (o < 0 || o >= g_.op_count() || preds_left_[oi] != 0 || placed_[oi] >= 0)
        return fail("the run-time policy dispatched op " + std::to_string(o) +
                    " that is not ready or already placed");
      if (!cost_.feasible(o, d))
        return fail("the run-time policy dispatched op '" + g_.op(o).name + "' to device '" +
                    cost_.platform().devices[di].name + "', which cannot run it");
      placed_[oi] = d;
      stream_of_[oi] = s;
      dispatch_order_.push_back(o);
      running_[di].push_back(o);
      input_signal_[oi] = &me;
      request_inputs(o, d, true);
      me.wait_for([&] { return missing_inputs_[oi] == 0; });
      started_[oi] = now();
      result_.ops[oi].start = now();
      sg4::this_actor::execute(cost_.op_time(o, d) * time_factor_[oi] * kNominalSpeed);
      result_.ops[oi].end = now();
      auto& run = running_[di];
      run.erase(std::find(run.begin(), run.end(), o));
      scheduler_->on_finished(o, d, result_.ops[oi].end - result_.ops[oi].start, *this);
      for (TensorId t : g_.op(o).outputs)
        copies_[static_cast<std::size_t>(t)].push_back({d, true, {}});
      for (OpId c : g_.successors(o))
        if (--preds_left_[static_cast<std::size_t>(c)] == 0) became_ready(c);
      if (--ops_left_ == 0) transfers_.close(true); // what is still queued is an unused prefetch
      wake_idle_streams();                          // new ready ops, or a device whose load changed
    }
  }

  void wake_idle_streams() {
    ++wake_generation_;
    idle_.notify();
  }

  void transfer_arrived(std::size_t request) {
    const Request& r = requests_[request];
    auto& copies = copies_[static_cast<std::size_t>(r.tensor)];
    auto it = std::find_if(copies.begin(), copies.end(), [&](const Copy& c) { return c.device == r.to; });
    it->arrived = true;
    const auto waiters = std::move(it->waiters);
    it->waiters.clear();
    for (OpId c : waiters)
      if (--missing_inputs_[static_cast<std::size_t>(c)] == 0)
        input_signal_[static_cast<std::size_t>(c)]->notify();
  }

  std::unique_ptr<DynamicScheduler> scheduler_;
  const CostModel& cost_;
  const Graph& g_;
  const SimgridPlatform& sg_;
  std::vector<double> time_factor_;
  std::vector<DeviceId> placed_;
  std::vector<int> stream_of_;
  std::vector<double> started_;
  std::vector<int> missing_inputs_;
  std::vector<Waitable*> input_signal_;
  std::vector<int> preds_left_;
  std::vector<std::vector<Copy>> copies_;  // per tensor
  std::vector<std::vector<OpId>> running_; // per device: dispatched, not finished
  std::vector<OpId> dispatch_order_;
  std::size_t ops_left_ = 0;
  std::string error_;
  Waitable idle_;                     // idle streams wait here for new ready ops
  std::uint64_t wake_generation_ = 0; // bumped by every event that may give an idle stream work
  std::vector<std::vector<std::unique_ptr<Waitable>>> stream_signal_;
  std::vector<Request> requests_; // what each queued transfer brings where
  Execution result_;
  replay::Transfers transfers_; // after result_, which it records into
};

} // namespace

DynamicRun run_simgrid_dynamic(const std::function<std::unique_ptr<DynamicScheduler>()>& start,
                               const std::string& policy, const CostModel& cost, const Scenario& scenario) {
  const std::string bytes = replay::run_in_child([&] {
    std::unique_ptr<DynamicReplay> r;
    return replay::simulate(
        cost.platform(), scenario,
        [&](SimgridPlatform& sg) {
          r = std::make_unique<DynamicReplay>(start(), cost, sg,
                                              scenario.op_time_factors(cost.graph().op_count()));
          r->start();
        },
        [&] {
          auto out = r->finish();
          r.reset();
          return out;
        });
  });
  // The Execution comes first, then the decisions; deserialize reads just its own part.
  DynamicRun run;
  run.execution = deserialize(bytes);
  const std::size_t decisions = serialize(run.execution).size();
  std::size_t pos = decisions;
  const auto placed = replay::get_vector<DeviceId>(bytes, pos);
  const auto streams = replay::get_vector<int>(bytes, pos);
  const auto order = replay::get_vector<OpId>(bytes, pos);
  run.plan = Plan::empty(cost.graph().op_count(), cost.platform(), policy);
  for (OpId o : order)
    run.plan.append(o, placed[static_cast<std::size_t>(o)], streams[static_cast<std::size_t>(o)]);
  validate_plan(run.plan, cost);
  return run;
}

} // namespace hs
