// eager: one shared ready queue ordered by priority (HEFT's upward rank); whenever a device stream is idle
// it takes the highest-priority ready op it can run. StarPU's "eager"/"prio" schedulers (Augonnet et al.,
// "StarPU: a unified platform for task scheduling on heterogeneous multicore architectures", CCPE 2011).
#include "policies/heft.hpp"
#include "policies/policy.hpp"
#include "policies/ready_queue.hpp"

namespace hs {
namespace {

class EagerScheduler final : public DynamicScheduler {
public:
  explicit EagerScheduler(const CostModel& cost) : ready_(upward_ranks(cost)) {}
  std::optional<DeviceId> on_ready(OpId op, const ReplayView&) override {
    ready_.push(op);
    return std::nullopt;
  }
  std::optional<OpId> on_idle(DeviceId device, const ReplayView& view) override {
    return ready_.pop_for(device, view.cost());
  }

private:
  ReadyQueue ready_;
};

struct Eager {
  std::string name() const { return "eager"; }
  std::string description() const {
    return "run-time: shared ready queue by upward rank, any idle device that can run the op takes it "
           "(StarPU eager/prio)";
  }
  std::unique_ptr<DynamicScheduler> start(const PolicyContext& ctx) const {
    return std::make_unique<EagerScheduler>(ctx.cost);
  }
};

} // namespace

HS_REGISTER_POLICY(Eager)

} // namespace hs
