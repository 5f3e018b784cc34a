#include "validation/framework_cost_model.hpp"

#include "validation/torch_runs.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

namespace hs::validation {

namespace {

ModelTreeOptions tree_options(bool shape_aware, int slope_feature) {
  ModelTreeOptions o;
  o.slope_feature = slope_feature;
  if (!shape_aware) o.max_depth = 0; // one launch + work / rate per kind, as a roofline per kind
  return o;
}

} // namespace

bool compute_bound_kind(const std::string& kind) {
  return kind == "gemm" || kind == "conv2d";
}

std::vector<double> FrameworkCostModel::features(const KindModel& k, const KernelPoint& p) {
  std::vector<double> x;
  x.reserve(k.dims.size() + 2);
  for (const auto& d : k.dims) {
    const auto it = p.shape.find(d);
    x.push_back(std::log1p(it == p.shape.end() ? 0.0 : it->second));
  }
  x.push_back(std::log1p(p.flops));
  x.push_back(std::log1p(p.bytes));
  return x;
}

FrameworkCostModel::FrameworkCostModel(const std::vector<KernelPoint>& points, FrameworkFitOptions options) {
  std::map<std::string, std::vector<const KernelPoint*>> by_kind;
  for (const auto& p : points) {
    by_kind[p.kind].push_back(&p);
    max_threads_ = std::max(max_threads_, point_threads(p));
  }
  for (const auto& [kind, pts] : by_kind) {
    KindModel k;
    std::set<std::string> dims;
    for (const KernelPoint* p : pts)
      for (const auto& [name, value] : p->shape)
        if (name != "threads") dims.insert(name);
    k.dims.assign(dims.begin(), dims.end());
    std::vector<std::string> names = k.dims;
    names.emplace_back("log_flops");
    names.emplace_back("log_bytes");
    const int slope = static_cast<int>(k.dims.size()) + (compute_bound_kind(kind) ? 0 : 1);

    std::map<int, std::vector<TreeSample>> by_threads;
    for (const KernelPoint* p : pts)
      by_threads[point_threads(*p)].push_back({features(k, *p), std::log(p->best_or_p50())});
    if (!by_threads.count(1)) continue; // no single-thread point: the kind stays unknown
    for (const auto& [n, samples] : by_threads)
      k.by_threads.emplace(n, ModelTree(names, samples, tree_options(options.shape_aware, slope)));
    kinds_.emplace(kind, std::move(k));
  }
}

double FrameworkCostModel::predict(const KernelPoint& p, int threads) const {
  const auto it = kinds_.find(p.kind);
  if (it == kinds_.end()) throw std::invalid_argument("no training point of kind '" + p.kind + "'");
  const KindModel& k = it->second;
  const auto tree = k.by_threads.find(threads);
  if (tree == k.by_threads.end())
    throw std::invalid_argument("'" + p.kind + "' was not measured at " + std::to_string(threads) +
                                (threads == 1 ? " thread" : " threads"));
  return std::exp(tree->second.predict(features(k, p)));
}

} // namespace hs::validation
