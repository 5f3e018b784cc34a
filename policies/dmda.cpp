// dmda: "deque model data aware" from StarPU (Augonnet et al., CCPE 2011): when an op becomes ready it is
// pushed to the device where it is expected to finish first, counting the work already queued or
// running there and the time to bring its inputs; each device runs its queue in order. Expectations come
// from the cost model corrected by each device's observed speed (the ratio of actual to expected
// durations of its last finished ops, a moving average, as StarPU's history-based performance models learn
// from measurements), so a slowed device stops attracting work once its first slowed op finishes.
#include "policies/policy.hpp"

#include <deque>

namespace hs {
namespace {

class DmdaScheduler final : public DynamicScheduler {
public:
  explicit DmdaScheduler(const CostModel& cost)
      : queues_(cost.platform().devices.size()), queued_work_(cost.platform().devices.size(), 0.0),
        slowdown_(cost.platform().devices.size(), 1.0) {}

  std::optional<DeviceId> on_ready(OpId op, const ReplayView& view) override {
    const CostModel& cost = view.cost();
    const Platform& p = cost.platform();
    DeviceId best = -1;
    double best_finish = kInfeasible;
    for (DeviceId d = 0; d < p.device_count(); ++d) {
      if (!cost.feasible(op, d)) continue;
      const auto di = static_cast<std::size_t>(d);
      const double available = view.now() + slowdown_[di] * (view.expected_remaining(d) + queued_work_[di]) /
                                                p.devices[di].streams;
      const double inputs = view.now() + view.input_transfer_time(op, d);
      const double finish = std::max(available, inputs) + slowdown_[di] * cost.op_time(op, d);
      if (finish < best_finish) {
        best = d;
        best_finish = finish;
      }
    }
    if (best < 0) return std::nullopt; // no device can run it: the replay reports it unscheduled
    queues_[static_cast<std::size_t>(best)].push_back(op);
    queued_work_[static_cast<std::size_t>(best)] += cost.op_time(op, best);
    return best;
  }

  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    auto& q = queues_[static_cast<std::size_t>(device)];
    if (q.empty()) return std::nullopt;
    const OpId op = q.front();
    q.pop_front();
    queued_work_[static_cast<std::size_t>(device)] -= view.cost().op_time(op, device);
    return op;
  }

  void on_finished(OpId op, DeviceId device, double seconds, const ReplayView& view) override {
    const double expected = view.cost().op_time(op, device);
    if (expected <= 0) return;
    double& s = slowdown_[static_cast<std::size_t>(device)];
    s = kSmoothing * (seconds / expected) + (1 - kSmoothing) * s;
  }

private:
  static constexpr double kSmoothing = 0.5; // weight of the newest observation
  std::vector<std::deque<OpId>> queues_;
  std::vector<double> queued_work_; // expected seconds queued per device, not yet dispatched
  std::vector<double> slowdown_;    // observed / expected duration per device
};

struct Dmda {
  std::string name() const { return "dmda"; }
  std::string description() const {
    return "run-time: each ready op to the device with the earliest expected finish incl. input transfers "
           "(StarPU dmda)";
  }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const {
    return std::make_unique<DmdaScheduler>(ctx.cost);
  }
};

} // namespace

HS_REGISTER_POLICY(Dmda)

} // namespace hs
