// work-stealing: each device owns a deque. A ready op goes to the device that produced one of its inputs
// when that device is of the op's fastest kind (locality), otherwise to the least-loaded device of that
// kind; an owner runs its newest op first, and an idle device steals the oldest op from the most loaded
// device of its own kind (Blumofe and Leiserson, "Scheduling multithreaded computations by work
// stealing", JACM 1999; restricted to same-kind devices as in StarPU's "ws" scheduler).
#include "policies/policy.hpp"

#include <deque>

namespace hs {
namespace {

class StealingScheduler final : public DynamicScheduler {
public:
  explicit StealingScheduler(const CostModel& cost) : deques_(cost.platform().devices.size()) {}

  std::optional<DeviceId> on_ready(OpId op, const ReplayView& view) override {
    const CostModel& cost = view.cost();
    const Platform& p = cost.platform();
    DeviceId fastest = -1;
    for (DeviceId d = 0; d < p.device_count(); ++d)
      if (cost.feasible(op, d) && (fastest < 0 || cost.op_time(op, d) < cost.op_time(op, fastest)))
        fastest = d;
    if (fastest < 0) return std::nullopt;
    const std::string& kind = p.devices[static_cast<std::size_t>(fastest)].kind;
    DeviceId home = -1;
    for (OpId pred : cost.graph().predecessors(op)) {
      const DeviceId d = view.device_of(pred);
      if (p.devices[static_cast<std::size_t>(d)].kind == kind && cost.feasible(op, d)) {
        home = d;
        break;
      }
    }
    if (home < 0)
      for (DeviceId d = 0; d < p.device_count(); ++d)
        if (p.devices[static_cast<std::size_t>(d)].kind == kind && cost.feasible(op, d) &&
            (home < 0 || load(d, view) < load(home, view)))
          home = d;
    deques_[static_cast<std::size_t>(home)].push_back(op);
    return std::nullopt; // it may still be stolen: inputs move when it is dispatched
  }

  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    auto& own = deques_[static_cast<std::size_t>(device)];
    if (!own.empty()) {
      const OpId op = own.back();
      own.pop_back();
      return op;
    }
    const Platform& p = view.cost().platform();
    DeviceId victim = -1;
    for (DeviceId d = 0; d < p.device_count(); ++d)
      if (d != device &&
          p.devices[static_cast<std::size_t>(d)].kind == p.devices[static_cast<std::size_t>(device)].kind &&
          !deques_[static_cast<std::size_t>(d)].empty() && (victim < 0 || load(d, view) > load(victim, view)))
        victim = d;
    if (victim < 0) return std::nullopt;
    auto& theirs = deques_[static_cast<std::size_t>(victim)];
    for (auto it = theirs.begin(); it != theirs.end(); ++it)
      if (view.cost().feasible(*it, device)) {
        const OpId op = *it;
        theirs.erase(it);
        return op;
      }
    return std::nullopt;
  }

private:
  double load(DeviceId d, const ReplayView& view) const {
    double queued = 0;
    for (OpId o : deques_[static_cast<std::size_t>(d)])
      queued += view.cost().op_time(o, d);
    return queued + view.expected_remaining(d);
  }
  std::vector<std::deque<OpId>> deques_;
};

struct WorkStealing {
  std::string name() const { return "work-stealing"; }
  std::string description() const {
    return "run-time: per-device deques, idle devices steal from the most loaded device of the same kind "
           "(Blumofe & Leiserson 1999)";
  }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const {
    return std::make_unique<StealingScheduler>(ctx.cost);
  }
};

} // namespace

HS_REGISTER_POLICY(WorkStealing)

} // namespace hs
