#include "serving/device_pinning.hpp"

#include "sim/cost_model.hpp"

namespace hs::serving {

std::string pin_to_devices(Graph& g, const Platform& p, const std::vector<std::string>& devices) {
  if (devices.empty()) return "";
  const CostModel free(g, p);
  for (OpId o = 0; o < g.op_count(); ++o) {
    auto& op = g.ops[static_cast<std::size_t>(o)];
    if (!op.allowed_devices.empty()) continue;
    for (const auto& name : devices)
      if (free.feasible(o, *p.find_device(name))) op.allowed_devices.push_back(name);
    if (op.allowed_devices.empty() && op.kind != "input")
      return "none of its devices runs op '" + op.name + "' (kind " + op.kind + ", " + op.precision +
             ") of " + g.name + "; add one that does, or choose another precision";
  }
  return "";
}

} // namespace hs::serving
