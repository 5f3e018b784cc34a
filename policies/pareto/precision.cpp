#include "policies/pareto/precision.hpp"

#include <algorithm>
#include <map>

namespace hs::pareto {

int precision_bits(const std::string& precision) {
  static const std::map<std::string, int> bits = {{"fp64", 64}, {"fp32", 32}, {"tf32", 19}, {"bf16", 16},
                                                  {"fp16", 16}, {"fp8", 8},   {"int8", 8},  {"int4", 4}};
  const auto it = bits.find(precision);
  return it == bits.end() ? 0 : it->second;
}

std::optional<std::string> run_precision(const CostModel& cost, OpId op, DeviceId dev, bool allow_demotion) {
  const Op& o = cost.graph().op(op);
  if (cost.feasible(op, dev)) return o.precision;
  if (!allow_demotion || o.has_explicit_times()) return std::nullopt;
  const Device& d = cost.platform().devices[static_cast<std::size_t>(dev)];
  if (!placement_restriction(o, d).empty()) return std::nullopt;
  if (!d.supports_op(o.kind)) return std::nullopt;
  const int own = precision_bits(o.precision);
  std::optional<std::string> best;
  int best_bits = 0;
  // Widest lower precision wins; ties (fp16 and bf16) go to the name first in order, for determinism.
  for (const auto& [name, flops] : d.peak_flops) {
    const int b = precision_bits(name);
    if (b > 0 && b < own && b > best_bits) {
      best = name;
      best_bits = b;
    }
  }
  return best;
}

double demotion_penalty(const Op& op, const std::string& to) {
  const int from_bits = precision_bits(op.precision), to_bits = precision_bits(to);
  if (from_bits == 0 || to_bits >= from_bits) return 0.0;
  return op.sensitivity * (1.0 - static_cast<double>(to_bits) / static_cast<double>(from_bits));
}

} // namespace hs::pareto
