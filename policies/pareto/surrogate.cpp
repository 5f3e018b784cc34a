#include "policies/pareto/surrogate.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hs::pareto {

AdditiveSurrogate::AdditiveSurrogate(const Encoding& enc, const KinClasses& kin, std::size_t targets,
                                     double ridge)
    : enc_(&enc), ridge_(ridge) {
  const auto& nodes = enc.coarse().nodes;
  // Each super-node's class: its kin class, or its own.
  std::vector<std::size_t> class_of(nodes.size());
  std::size_t classes = 0;
  std::vector<char> in_kin(nodes.size(), 0);
  for (const auto& members : kin.classes) {
    for (std::size_t s : members) {
      class_of[s] = classes;
      in_kin[s] = 1;
    }
    ++classes;
  }
  for (std::size_t s = 0; s < nodes.size(); ++s)
    if (!in_kin[s]) class_of[s] = classes++;
  std::size_t next = 1; // feature 0: the intercept
  std::vector<std::size_t> class_feature(classes, 0);
  node_feature_.resize(nodes.size());
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const std::size_t c = class_of[s];
    if (class_feature[c] == 0) { // device indices 1..upper; index 0 is the class's reference
      class_feature[c] = next;
      next += static_cast<std::size_t>(enc.upper()[s]);
    }
    node_feature_[s] = class_feature[c];
  }
  for (std::size_t gene = nodes.size(); gene < enc.size(); ++gene) {
    rewrite_feature_.push_back(next);
    next += static_cast<std::size_t>(enc.upper()[gene]);
  }
  const auto& node_of = enc.coarse().node_of;
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (const Tensor& t : enc.base().graph().tensors)
    for (OpId c : t.consumers) {
      const auto a = static_cast<std::size_t>(node_of[static_cast<std::size_t>(t.producer)]);
      const auto b = static_cast<std::size_t>(node_of[static_cast<std::size_t>(c)]);
      if (a != b && enc.upper()[a] + enc.upper()[b] > 0) pairs.insert({std::min(a, b), std::max(a, b)});
    }
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> pair_feature;
  for (const auto& [a, b] : pairs) {
    const auto key = std::minmax(class_of[a], class_of[b]);
    auto [it, fresh] = pair_feature.try_emplace({key.first, key.second}, next);
    if (fresh) ++next;
    joined_.emplace_back(a, b);
    joined_feature_.push_back(it->second);
  }
  features_ = next;
  targets_ = targets;
}

AdditiveSurrogate::Features AdditiveSurrogate::features_of(const Genome& g) const {
  std::map<std::size_t, double> x = {{0, 1.0}};
  const auto& nodes = enc_->coarse().nodes;
  for (std::size_t s = 0; s < nodes.size(); ++s)
    if (g[s] > 0) x[node_feature_[s] + static_cast<std::size_t>(g[s]) - 1] += 1.0;
  for (std::size_t r = 0; r < rewrite_feature_.size(); ++r) {
    const int v = g[nodes.size() + r];
    if (v > 0) x[rewrite_feature_[r] + static_cast<std::size_t>(v) - 1] += 1.0;
  }
  for (std::size_t e = 0; e < joined_.size(); ++e) {
    const auto [a, b] = joined_[e];
    if (nodes[a].devices[static_cast<std::size_t>(g[a])] != nodes[b].devices[static_cast<std::size_t>(g[b])])
      x[joined_feature_[e]] += 1.0;
  }
  return {x.begin(), x.end()};
}

void AdditiveSurrogate::add(const Genome& g, const std::vector<double>& targets) {
  if (samples_ == 0) { // the normal equations only once there is something to learn: they are features^2
    const auto n = static_cast<Eigen::Index>(features_);
    gram_ = Eigen::MatrixXd::Zero(n, n);
    rhs_ = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(targets_));
  }
  const Features x = features_of(g);
  for (const auto& [i, xi] : x) {
    for (const auto& [j, xj] : x)
      gram_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) += xi * xj;
    for (std::size_t k = 0; k < targets.size(); ++k)
      rhs_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) += xi * targets[k];
  }
  ++samples_;
}

void AdditiveSurrogate::fit() {
  Eigen::MatrixXd a = gram_;
  // Every weight but the intercept's is penalised, so a feature never seen stays at zero.
  for (Eigen::Index i = 1; i < a.rows(); ++i)
    a(i, i) += ridge_ * std::max(1, samples_);
  weights_ = a.ldlt().solve(rhs_);
  fitted_ = true;
}

std::vector<double> AdditiveSurrogate::predict(const Genome& g) const {
  std::vector<double> p(static_cast<std::size_t>(weights_.cols()), 0.0);
  for (const auto& [i, xi] : features_of(g))
    for (std::size_t k = 0; k < p.size(); ++k)
      p[k] += xi * weights_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
  return p;
}

} // namespace hs::pareto
