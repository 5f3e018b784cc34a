#include "policies/pareto/kin.hpp"

#include <map>
#include <tuple>

namespace hs::pareto {

KinClasses find_kin(const Encoding& enc) {
  const Graph& g = enc.base().graph();
  const auto& nodes = enc.coarse().nodes;
  // Signature: the allowed devices, then each op's (kind, FLOPs, bytes read, bytes written) in op order.
  using OpSignature = std::tuple<std::string, double, double, double>;
  using Signature = std::pair<std::vector<DeviceId>, std::vector<OpSignature>>;
  std::map<Signature, std::vector<std::size_t>> by_signature;
  std::vector<char> seen(nodes.size(), 0);
  std::size_t movable = 0;
  for (OpId o : g.topological_order()) {
    const auto s = static_cast<std::size_t>(enc.coarse().node_of[static_cast<std::size_t>(o)]);
    if (seen[s] || enc.upper()[s] == 0) continue;
    seen[s] = 1;
    ++movable;
    Signature sig{nodes[s].devices, {}};
    for (OpId m : nodes[s].ops) {
      const Op& op = g.ops[static_cast<std::size_t>(m)];
      sig.second.emplace_back(op.kind, op.flops, op.bytes_read, op.bytes_written);
    }
    by_signature[sig].push_back(s);
  }
  KinClasses out;
  std::size_t in_classes = 0;
  for (auto& [sig, members] : by_signature)
    if (members.size() >= 2) {
      in_classes += members.size();
      out.classes.push_back(std::move(members));
    }
  // Classes in the order of their first member, so that the order does not hang on the signature's.
  std::sort(out.classes.begin(), out.classes.end(),
            [&](const auto& a, const auto& b) { return a.front() < b.front(); });
  out.coverage = movable > 0 ? static_cast<double>(in_classes) / static_cast<double>(movable) : 0.0;
  return out;
}

std::vector<std::size_t> kin_subset(const std::vector<std::size_t>& members, Rng& rng) {
  const std::size_t n = members.size();
  std::vector<std::size_t> periods;
  for (std::size_t p = 1; p <= n; ++p)
    if (n % p == 0) periods.push_back(p);
  const auto pick = [&](std::size_t k) {
    return static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(k) - 1));
  };
  const std::size_t period = periods[pick(periods.size())];
  const std::size_t first = pick(period), last = first + pick(period - first);
  const std::size_t stride = 1 + pick(2);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t pos = i % period;
    if (pos >= first && pos <= last && (pos - first) % stride == 0) out.push_back(members[i]);
  }
  return out;
}

} // namespace hs::pareto
