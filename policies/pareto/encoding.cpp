#include "policies/pareto/encoding.hpp"

#include "policies/pareto/placement_order.hpp"
#include "policies/pareto/precision.hpp"

#include <algorithm>
#include <stdexcept>

namespace hs::pareto {

Encoding::Encoding(const CostModel& cost, EncodingOptions o)
    : cost_(&cost), options_(std::move(o)),
      candidates_(std::make_shared<RewriteCandidates>(find_rewrite_candidates(cost, options_.rewrites))),
      base_flat_(cost.graph()) {
  if (!options_.fusion) candidates_->fusions.clear();
  if (!options_.splitting) candidates_->splits.clear();
  coarse_ = coarsen(cost, *candidates_, options_.coarsen);
  for (const auto& node : coarse_.nodes)
    upper_.push_back(static_cast<int>(node.devices.size()) - 1);
  for (std::size_t f = 0; f < candidates_->fusions.size(); ++f)
    upper_.push_back(1);
  for (const auto& s : candidates_->splits) {
    std::vector<DeviceId> targets;
    for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
      if (cost.feasible(s.op, d)) targets.push_back(d);
    upper_.push_back(static_cast<int>(targets.size()));
    split_targets_.push_back(std::move(targets));
  }
}

Genome Encoding::project(const Plan& plan) const {
  Genome g(size(), 0);
  const auto nd = static_cast<std::size_t>(cost_->platform().device_count());
  for (std::size_t s = 0; s < coarse_.nodes.size(); ++s) {
    const auto& node = coarse_.nodes[s];
    std::vector<double> load(nd, 0.0);
    for (OpId x : node.ops) {
      const DeviceId d = plan.device[static_cast<std::size_t>(x)];
      const double t = cost_->op_time(x, d);
      load[static_cast<std::size_t>(d)] +=
          (t < kInfeasible ? t : 0.0) + 1e-30; // an op counts even at zero cost
    }
    int best = 0;
    for (std::size_t k = 0; k < node.devices.size(); ++k)
      if (load[static_cast<std::size_t>(node.devices[k])] >
          load[static_cast<std::size_t>(node.devices[static_cast<std::size_t>(best)])])
        best = static_cast<int>(k);
    g[s] = best;
  }
  return g;
}

Genome Encoding::all_on(DeviceId dev) const {
  Genome g(size(), 0);
  for (std::size_t s = 0; s < coarse_.nodes.size(); ++s) {
    const auto& devs = coarse_.nodes[s].devices;
    const auto it = std::find(devs.begin(), devs.end(), dev);
    g[s] = it == devs.end() ? 0 : static_cast<int>(it - devs.begin());
  }
  return g;
}

std::shared_ptr<const RewrittenModel> Encoding::rewritten_for(const RewriteDecision& d) const {
  std::string key;
  for (bool f : d.fuse)
    key += f ? '1' : '0';
  key += '|';
  for (bool s : d.split)
    key += s ? '1' : '0';
  for (std::size_t i = 0; i < d.precision.size(); ++i)
    if (!d.precision[i].empty()) {
      key += '|';
      key += std::to_string(i);
      key += ':';
      key += d.precision[i];
    }
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  auto model = std::make_shared<const RewrittenModel>(*cost_, candidates_, d);
  constexpr std::size_t kCacheSize = 64;
  if (cache_order_.size() >= kCacheSize) {
    cache_.erase(cache_order_.front());
    cache_order_.pop_front();
  }
  cache_.emplace(key, model);
  cache_order_.push_back(key);
  return model;
}

Decoded Encoding::decode(const Genome& genome) const {
  if (genome.size() != size()) throw std::invalid_argument("genome has the wrong length");
  const Graph& g = cost_->graph();
  const auto n = static_cast<std::size_t>(g.op_count());
  Decoded out;
  out.op_device.assign(n, -1);
  for (std::size_t s = 0; s < coarse_.nodes.size(); ++s) {
    const auto& node = coarse_.nodes[s];
    const DeviceId d = node.devices[static_cast<std::size_t>(
        std::clamp(genome[s], 0, static_cast<int>(node.devices.size()) - 1))];
    for (OpId x : node.ops)
      out.op_device[static_cast<std::size_t>(x)] = d;
  }
  RewriteDecision& dec = out.decision;
  dec.fuse.assign(candidates_->fusions.size(), false);
  for (std::size_t f = 0; f < candidates_->fusions.size(); ++f)
    dec.fuse[f] = genome[fusion_gene(f)] != 0;
  dec.split.assign(candidates_->splits.size(), false);
  out.split_device.assign(candidates_->splits.size(), -1);
  for (std::size_t s = 0; s < candidates_->splits.size(); ++s) {
    const int k = genome[split_gene(s)];
    if (k <= 0) continue;
    dec.split[s] = true;
    out.split_device[s] =
        split_targets_[s]
                      [static_cast<std::size_t>(std::min(k, static_cast<int>(split_targets_[s].size())) - 1)];
  }
  dec.precision.assign(n, "");
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<OpId>(i);
    if (cost_->feasible(x, out.op_device[i])) continue;
    const auto p = run_precision(*cost_, x, out.op_device[i], options_.coarsen.allow_demotion);
    if (!p) continue; // cannot happen for allowed devices; the evaluator would report it infeasible
    dec.precision[i] = *p;
    out.precision_penalty += demotion_penalty(g.op(x), *p);
  }
  out.base = cost_;
  const Platform& p = cost_->platform();
  if (!dec.changes_graph()) {
    out.plan = plan_for_placement(base_flat_, cost_->op_time_table(), p, out.op_device, "pareto");
    return out;
  }
  out.rewritten = rewritten_for(dec);
  std::vector<DeviceId> device;
  device.reserve(out.rewritten->ops().size());
  for (const auto& r : out.rewritten->ops())
    device.push_back(r.role == Role::SplitSecond ? out.split_device[static_cast<std::size_t>(r.candidate)]
                                                 : out.op_device[static_cast<std::size_t>(r.origin.front())]);
  out.plan = plan_for_placement(out.rewritten->flat(), out.rewritten->op_times(), p, device, "pareto");
  return out;
}

} // namespace hs::pareto
