#include "validation/framework_cost_model.hpp"

#include "validation/torch_runs.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

namespace hs::validation {

namespace {

ModelTreeOptions tree_options(const FrameworkFitOptions& fit, int slope_feature) {
  const bool shape_aware = fit.shape_aware;
  ModelTreeOptions o;
  o.slope_feature = slope_feature;
  if (fit.min_leaf > 0) o.min_leaf = fit.min_leaf;
  if (!shape_aware) o.max_depth = 0; // one launch + work / rate per kind, as a roofline per kind
  return o;
}

// The tree's features, as sim/framework_model.cpp computes them for a graph op.
std::vector<double> point_features(const std::vector<std::string>& dims, const KernelPoint& p) {
  std::vector<double> x;
  x.reserve(dims.size() + 2);
  for (const auto& d : dims) {
    const auto it = p.shape.find(d);
    x.push_back(std::log1p(it == p.shape.end() ? 0.0 : it->second));
  }
  x.push_back(std::log1p(p.flops));
  x.push_back(std::log1p(p.bytes));
  return x;
}

} // namespace

bool compute_bound_kind(const std::string& kind) {
  return kind == "gemm" || kind == "conv2d";
}

FrameworkCostModel::FrameworkCostModel(const std::vector<KernelPoint>& points, FrameworkFitOptions options) {
  std::map<std::string, std::vector<const KernelPoint*>> by_kind;
  int fewest_threads = 0; // the smallest thread count measured: 1 for a kernel grid, N for a run at N
  for (const auto& p : points) {
    by_kind[p.kind].push_back(&p);
    max_threads_ = std::max(max_threads_, point_threads(p));
    fewest_threads = fewest_threads == 0 ? point_threads(p) : std::min(fewest_threads, point_threads(p));
  }
  for (const auto& [kind, pts] : by_kind) {
    FrameworkModel::Kind k;
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
      by_threads[point_threads(*p)].push_back({point_features(k.dims, *p), std::log(p->best_or_p50())});
    if (!by_threads.count(fewest_threads)) continue; // none at the fewest threads: the kind stays unknown
    for (const auto& [n, samples] : by_threads)
      k.by_threads.emplace(n, ModelTree(names, samples, tree_options(options, slope)));
    model_.add_kind(kind, std::move(k));
  }
}

double FrameworkCostModel::predict(const KernelPoint& p, int threads) const {
  return model_.seconds(p.kind, p.shape, p.flops, p.bytes, threads);
}

} // namespace hs::validation
