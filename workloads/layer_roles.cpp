#include "workloads/layer_roles.hpp"

#include "sim/memory.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace hs {

bool has_suffix(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool in_optimizer_pass(const Op& op) {
  return op.kind == "optimizer" || op.name.starts_with(kGradientClipPrefix) ||
         has_suffix(op.name, kGradientNormSuffix) || has_suffix(op.name, kGradientScaleSuffix);
}

void refuse_clipped_gradients(const Graph& g, const std::string& transform) {
  for (const Op& op : g.ops)
    if (op.name.starts_with(kGradientClipPrefix))
      throw std::invalid_argument("graph '" + g.name + "' clips its gradients by their global norm (op '" +
                                  op.name + "'): " + transform +
                                  " does not gather the norm over ranks yet; build the step with clip=off");
}

OpRoles roles_of(const Graph& g) {
  std::unordered_map<std::string, OpId> by_name;
  for (OpId o = 0; o < g.op_count(); ++o)
    by_name.emplace(g.op(o).name, o);
  OpRoles r{std::vector<Pass>(static_cast<std::size_t>(g.op_count()), Pass::Forward),
            std::vector<OpId>(static_cast<std::size_t>(g.op_count()), -1)};
  for (OpId o : g.topological_order()) {
    const Op& op = g.op(o);
    auto& pass = r.pass[static_cast<std::size_t>(o)];
    auto& owner = r.owner[static_cast<std::size_t>(o)];
    std::string base = op.name;
    if (in_optimizer_pass(op)) pass = Pass::Optimizer;
    for (const char* tail :
         {".dgrad", ".wgrad", ".bgrad", ".bwd", ".bwd_rhs", ".gradsum", tied_gradient_sum_suffix, ".adam",
          ".recompute", kGradientNormSuffix, kGradientScaleSuffix})
      if (has_suffix(op.name, tail)) {
        base = op.name.substr(0, op.name.size() - std::string(tail).size());
        if (pass == Pass::Forward) pass = Pass::Backward;
      }
    if (pass == Pass::Forward) {
      owner = o;
    } else if (auto it = by_name.find(base); it != by_name.end() && it->second != o) {
      owner = it->second;
    } else if (!op.inputs.empty()) {
      // A backward op without a forward namesake, or clipping's scalar chain: where its input comes from.
      // The chain thereby belongs to the first layer whose norm it reads, the first pipeline stage's, whose
      // backward pass ends last.
      owner = r.owner[static_cast<std::size_t>(g.tensor(op.inputs.front()).producer)];
    }
  }
  return r;
}

} // namespace hs
