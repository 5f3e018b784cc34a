// hybrid: a static partition of the graph to device groups (the device kind HEFT chose for each op), then
// a run-time choice within each group: a ready queue per group by upward rank, taken by whichever device of
// the group is idle first. The partition keeps HEFT's global view of which kind suits which op; the
// run-time part absorbs interference and noise among interchangeable devices (in the spirit of StarPU's
// "heteroprio" and of two-level static/dynamic schemes such as Beaumont et al., "Fast approximation
// algorithms for task-based runtime systems", CCPE 2018).
#include "policies/heft.hpp"
#include "policies/policy.hpp"
#include "policies/ready_queue.hpp"

#include <map>

namespace hs {
namespace {

class HybridScheduler final : public DynamicScheduler {
public:
  explicit HybridScheduler(const CostModel& cost) {
    const Platform& p = cost.platform();
    const auto rank = upward_ranks(cost);
    const auto heft = schedule_in_order(order_by_decreasing(cost.graph(), rank), cost, true,
                                        [](OpId, DeviceId, double eft) { return eft; });
    for (const auto& d : p.devices)
      if (!group_of_kind_.count(d.kind)) {
        group_of_kind_[d.kind] = queues_.size();
        queues_.emplace_back(rank);
      }
    for (DeviceId d : heft.device)
      group_.push_back(group_of_kind_.at(p.devices[static_cast<std::size_t>(d)].kind));
  }

  std::optional<DeviceId> on_ready(OpId op, const ReplayView&) override {
    queues_[group_[static_cast<std::size_t>(op)]].push(op);
    return std::nullopt;
  }

  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    const auto& kind = view.cost().platform().devices[static_cast<std::size_t>(device)].kind;
    return queues_[group_of_kind_.at(kind)].pop_for(device, view.cost());
  }

private:
  std::map<std::string, std::size_t> group_of_kind_;
  std::vector<ReadyQueue> queues_; // per group
  std::vector<std::size_t> group_; // per op
};

struct Hybrid {
  std::string name() const { return "hybrid"; }
  std::string description() const {
    return "static partition to device kinds (HEFT's choice), run-time choice among the devices of each kind";
  }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const {
    return std::make_unique<HybridScheduler>(ctx.cost);
  }
};

} // namespace

HS_REGISTER_POLICY(Hybrid)

} // namespace hs
