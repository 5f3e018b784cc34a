// For graphs whose transformation already placed every op (data and pipeline parallelism, collectives):
// each op on the first device its pins and the cost model allow, in topological order; collective steps
// on a stream of their own, as NCCL runs them beside the compute stream. O(V x D) in the worst case and
// O(V) when ops are pinned, so it plans a 1024-GPU step where a list scheduler would weigh every device
// for every op.
#include "policies/policy.hpp"

namespace hs {
namespace {

struct AsPinned {
  std::string name() const { return "as-pinned"; }
  std::string description() const {
    return "each op on the device it is pinned to (else the first that can run it), topological order; "
           "collectives on their own stream";
  }
  // On a graph nothing pinned it puts everything on the first device: no schedule worth comparing.
  bool in_comparisons() const { return false; }
  Plan plan(const PolicyContext& ctx) const {
    const Graph& g = ctx.graph();
    const Platform& p = ctx.platform();
    Plan plan = Plan::empty(g.op_count(), p, name());
    for (OpId o : g.topological_order()) {
      const Op& op = g.op(o);
      DeviceId device = -1;
      if (op.allowed_devices.size() == 1) {
        const auto pinned = p.find_device(op.allowed_devices.front());
        if (pinned && ctx.cost.feasible(o, *pinned)) device = *pinned;
      }
      for (DeviceId d = 0; device < 0 && d < p.device_count(); ++d)
        if (ctx.cost.feasible(o, d)) device = d;
      if (device < 0) throw PlanError("as-pinned: no device can run op '" + op.name + "'");
      const int streams = p.devices[static_cast<std::size_t>(device)].streams;
      plan.append(o, device, op.kind == "collective" && streams > 1 ? 1 : 0);
    }
    return plan;
  }
};

} // namespace

HS_REGISTER_POLICY(AsPinned)

} // namespace hs
