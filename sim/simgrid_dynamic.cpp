// The replay of a run-time policy: the feed of the replay core (sim/stream_executor.hpp) through which
// each device stream asks the policy for work whenever it is idle; ops become ready when their
// predecessors finish; inputs are pulled from their producer's device when an op is dispatched (or
// earlier, when the policy commits it to a device: prefetch).
#include "sim/replay_process.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/stream_executor.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

namespace sg4 = simgrid::s4u;

namespace hs {
namespace {

struct Copy {
  DeviceId device;
  bool arrived;
  std::vector<OpId> waiters; // dispatched consumers on `device` waiting for it
};

struct Request {
  TensorId tensor;
  DeviceId to;
};

class DynamicFeed final : public replay::Feed, public ReplayView {
public:
  DynamicFeed(std::unique_ptr<DynamicScheduler> scheduler, const CostModel& cost,
              replay::StreamExecutor& executor)
      : scheduler_(std::move(scheduler)), cost_(cost), g_(cost.graph()), executor_(executor),
        transfers_(executor.transfers()) {
    const auto n = static_cast<std::size_t>(g_.op_count());
    const Platform& p = cost.platform();
    placed_.assign(n, -1);
    stream_of_.assign(n, -1);
    pstate_.assign(n, 0);
    started_.assign(n, -1.0);
    issued_.assign(n, 0.0);
    last_issued_.assign(p.devices.size(), 0.0);
    issue_costs_ = cost.issue_costs();
    missing_inputs_.assign(n, 0);
    input_signal_.assign(n, nullptr);
    preds_left_.resize(n);
    for (std::size_t o = 0; o < n; ++o)
      preds_left_[o] = static_cast<int>(g_.predecessors(static_cast<OpId>(o)).size());
    copies_.resize(static_cast<std::size_t>(g_.tensor_count()));
    running_.resize(p.devices.size());
    ops_left_ = n;
  }

  void start() {
    const Platform& p = cost_.platform();
    for (OpId o = 0; o < g_.op_count(); ++o)
      if (preds_left_[static_cast<std::size_t>(o)] == 0) became_ready(o);
    if (ops_left_ == 0) transfers_.close(true);
    std::vector<std::pair<DeviceId, int>> streams;
    for (std::size_t d = 0; d < p.devices.size(); ++d)
      for (int s = 0; s < p.devices[d].streams; ++s)
        streams.emplace_back(static_cast<DeviceId>(d), s);
    executor_.start(*this, streams);
  }

  std::string finish() {
    if (!error_.empty()) throw std::runtime_error(error_);
    if (ops_left_ != 0)
      throw std::runtime_error("the run-time policy left " + std::to_string(ops_left_) +
                               " ops unscheduled (no idle device accepted them)");
    std::string out = serialize(executor_.finish());
    replay::put_vector(out, placed_);
    replay::put_vector(out, stream_of_);
    replay::put_vector(out, pstate_);
    replay::put_vector(out, dispatch_order_);
    return out;
  }

  // --- replay::Feed ---
  std::optional<OpId> next(DeviceId d, int s, replay::Waitable& me) override;
  int pstate(OpId o) const override { return pstate_[static_cast<std::size_t>(o)]; }
  double issued_at(OpId o) const override { return issued_[static_cast<std::size_t>(o)]; }
  void finished(OpId o, DeviceId d, double seconds) override;
  void arrived(std::size_t request) override { transfer_arrived(request); }

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
  replay::StreamExecutor& executor_;
  replay::Transfers& transfers_;
  std::vector<DeviceId> placed_;
  std::vector<int> stream_of_;
  std::vector<int> pstate_; // the p-state each op ran at (DynamicScheduler::pstate_for)
  std::vector<double> started_;
  // The host issues an op as the policy dispatches it, after the device's earlier ops (sim/host_issue.hpp).
  std::vector<double> issued_, last_issued_;
  IssueCosts issue_costs_;
  std::vector<int> missing_inputs_;
  std::vector<replay::Waitable*> input_signal_;
  std::vector<int> preds_left_;
  std::vector<std::vector<Copy>> copies_;  // per tensor
  std::vector<std::vector<OpId>> running_; // per device: dispatched, not finished
  std::vector<OpId> dispatch_order_;
  std::size_t ops_left_ = 0;
  std::string error_;
  replay::Waitable idle_;             // idle streams wait here for new ready ops
  std::uint64_t wake_generation_ = 0; // bumped by every event that may give an idle stream work
  std::vector<Request> requests_;     // what each queued transfer brings where
};

std::optional<OpId> DynamicFeed::next(DeviceId d, int s, replay::Waitable& me) {
  const auto di = static_cast<std::size_t>(d);
  const auto next = next_op(d);
  if (!next) return std::nullopt;
  const OpId o = *next;
  const auto oi = static_cast<std::size_t>(o);
  if (o < 0 || o >= g_.op_count() || preds_left_[oi] != 0 || placed_[oi] >= 0) {
    fail("the run-time policy dispatched op " + std::to_string(o) + " that is not ready or already placed");
    return std::nullopt;
  }
  if (!cost_.feasible(o, d)) {
    fail("the run-time policy dispatched op '" + g_.op(o).name + "' to device '" +
         cost_.platform().devices[di].name + "', which cannot run it");
    return std::nullopt;
  }
  const int pstate = scheduler_->pstate_for(o, d, *this);
  if (pstate < 0 || static_cast<std::size_t>(pstate) >= cost_.platform().devices[di].pstates.size()) {
    fail("the run-time policy chose p-state " + std::to_string(pstate) + " for op '" + g_.op(o).name +
         "' on device '" + cost_.platform().devices[di].name + "', which has no such state");
    return std::nullopt;
  }
  placed_[oi] = d;
  stream_of_[oi] = s;
  pstate_[oi] = pstate;
  dispatch_order_.push_back(o);
  running_[di].push_back(o);
  input_signal_[oi] = &me;
  if (const double per_op = issue_costs_.of(oi, di); per_op > 0.0)
    last_issued_[di] = issued_[oi] = std::max(now(), last_issued_[di]) + per_op;
  request_inputs(o, d, true);
  me.wait_for([&] { return missing_inputs_[oi] == 0; });
  started_[oi] = std::max(now(), issued_[oi]);
  return o;
}

void DynamicFeed::finished(OpId o, DeviceId d, double seconds) {
  auto& run = running_[static_cast<std::size_t>(d)];
  run.erase(std::find(run.begin(), run.end(), o));
  scheduler_->on_finished(o, d, seconds, *this);
  for (TensorId t : g_.op(o).outputs)
    copies_[static_cast<std::size_t>(t)].push_back({d, true, {}});
  for (OpId c : g_.successors(o))
    if (--preds_left_[static_cast<std::size_t>(c)] == 0) became_ready(c);
  if (--ops_left_ == 0) transfers_.close(true); // what is still queued is an unused prefetch
  wake_idle_streams();                          // new ready ops, or a device whose load changed
}

} // namespace

DynamicRun run_simgrid_dynamic(const std::function<std::unique_ptr<DynamicScheduler>()>& start,
                               const std::string& policy, const CostModel& cost, const Scenario& scenario) {
  const std::string bytes = replay::run_in_child([&] {
    std::unique_ptr<replay::StreamExecutor> executor;
    std::unique_ptr<DynamicFeed> feed;
    return replay::simulate(
        cost.platform(), scenario,
        [&](SimgridPlatform& sg) {
          executor = std::make_unique<replay::StreamExecutor>(
              cost, sg, scenario.op_time_factors(cost.graph().op_count()));
          feed = std::make_unique<DynamicFeed>(start(), cost, *executor);
          feed->start();
        },
        [&] {
          auto out = feed->finish();
          feed.reset(); // while the Engine still exists: the executor owns SimGrid mutexes
          executor.reset();
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
  const auto pstates = replay::get_vector<int>(bytes, pos);
  const auto order = replay::get_vector<OpId>(bytes, pos);
  run.plan = Plan::empty(cost.graph().op_count(), cost.platform(), policy);
  for (OpId o : order) {
    const auto oi = static_cast<std::size_t>(o);
    run.plan.append(o, placed[oi], streams[oi], pstates[oi]);
  }
  validate_plan(run.plan, cost);
  return run;
}

} // namespace hs
