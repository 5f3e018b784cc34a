// expert-grouping: ops placed by layer type from a table an engineer can edit (op kind -> device kinds in
// order of preference), the way practitioners hand-place layers (for example convolutions on the GPU,
// attention on the NPU, the rest on the CPU). Within the first preferred kind that has a device able to
// run the op, the op goes to the device of that kind where it finishes earliest (HEFT's order and
// insertion), so several GPUs share the GPU ops. Kinds missing from the platform are skipped; an op whose
// kinds are all missing may go anywhere. The table is the "expert-grouping" section of --policy-config:
//   { "expert-grouping": { "table": { "conv2d": ["gpu"], "attention": ["npu", "gpu"], "default": ["cpu"] } }
//   }
// Entries given replace the default entries of the same op kind; "default" covers unlisted kinds.
#include "policies/heft.hpp"
#include "policies/policy.hpp"
#include "policies/policy_config.hpp"

#include <algorithm>
#include <map>

namespace hs {
namespace {

using Table = std::map<std::string, std::vector<std::string>>;

// The default groups: dense linear algebra on GPUs (then NPUs), attention on NPUs (then GPUs), the rest
// on the CPU. A starting point in the spirit of device-placement baselines (Mirhoseini et al., "Device
// placement optimization with reinforcement learning", ICML 2017, compare against such hand placements).
Table default_table() {
  return {{"gemm", {"gpu", "npu", "fpga"}},
          {"matmul", {"gpu", "npu", "fpga"}},
          {"conv2d", {"gpu", "npu", "fpga"}},
          {"attention", {"npu", "gpu"}},
          {"embedding", {"cpu"}},
          {"default", {"cpu"}}};
}

struct ExpertGrouping {
  std::string name() const { return "expert-grouping"; }
  std::string description() const {
    return "ops to device kinds by op kind from an editable table (--policy-config), earliest finish within "
           "the kind";
  }

  Plan plan(const PolicyContext& ctx) const {
    const CostModel& cost = ctx.cost;
    const Platform& p = ctx.platform();
    const Table table = load_table(ctx);
    const auto preferred = [&](OpId o) {
      const auto& kind = ctx.graph().op(o).kind;
      auto it = table.find(kind);
      if (it == table.end()) it = table.find("default");
      std::vector<std::string> kinds = it == table.end() ? std::vector<std::string>{} : it->second;
      for (const auto& k : kinds)
        for (DeviceId d = 0; d < p.device_count(); ++d)
          if (p.devices[static_cast<std::size_t>(d)].kind == k && cost.feasible(o, d)) return k;
      return std::string(); // any kind
    };
    std::vector<std::string> group(static_cast<std::size_t>(ctx.graph().op_count()));
    for (OpId o = 0; o < ctx.graph().op_count(); ++o)
      group[static_cast<std::size_t>(o)] = preferred(o);
    const auto rank = upward_ranks(cost);
    const auto order = order_by_decreasing(ctx.graph(), rank);
    if (ctx.observer) {
      ListRules rules =
          upward_rank_rules("earliest finish time among the devices of the op's preferred kind");
      rules.excluded_by_rule = "not of the op's preferred device kind";
      ctx.observer->ranks(rules, rank, order, {});
    }
    const auto s = schedule_in_order(
        order, cost, true,
        [&](OpId o, DeviceId d, double eft) {
          const auto& want = group[static_cast<std::size_t>(o)];
          return want.empty() || p.devices[static_cast<std::size_t>(d)].kind == want ? eft : kInfeasible;
        },
        ctx.observer);
    return plan_from_assignment(ctx.graph(), p, s.device, s.start, name());
  }

  Table load_table(const PolicyContext& ctx) const {
    Table table = default_table();
    const auto section = policy_section(ctx, name());
    if (!section) return table;
    section->expect_only({"table", "notes"});
    if (auto t = section->find("table"))
      for (const auto& [kind, kinds] : t->members()) {
        kinds.expect_op_kind_key(kind, true);
        auto list = kinds.as_string_list();
        if (list.empty()) kinds.fail("needs at least one device kind");
        table[kind] = std::move(list);
      }
    return table;
  }
};

} // namespace

HS_REGISTER_POLICY(ExpertGrouping)

} // namespace hs
