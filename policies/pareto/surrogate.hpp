#pragma once
// A learned surrogate of the objectives, fitted online on every plan the search has evaluated: ridge
// regression of each target on the genome's features, so that each feature adds its own share. The
// features: for each class of kin super-nodes (kin.hpp; a super-node without kin is its own class), how
// many of its members are on each device; each rewrite gene's value; and, for each pair of classes joined
// by a tensor, how many of those tensors cross between devices (the transfers). Kin share their weights,
// which keeps a transformer's thousand super-nodes at a few hundred features and lets what one decode
// step taught apply to the others. On plans that trade one block's device against another, the
// objectives are close to additive in these features; the search ranks a batch of candidate neighbours
// with it before one of them is evaluated. Only the evaluator's values are ever reported.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/kin.hpp"

#include <Eigen/Dense>
#include <utility>
#include <vector>

namespace hs::pareto {

class AdditiveSurrogate {
public:
  // `targets`: the length of each target vector; `ridge`: the penalty on every weight but the intercept's,
  // per sample.
  AdditiveSurrogate(const Encoding& enc, const KinClasses& kin, std::size_t targets, double ridge = 1e-3);

  std::size_t features() const { return features_; }
  // An evaluated plan's targets to learn from.
  void add(const Genome& g, const std::vector<double>& targets);
  // Refits on everything added (the normal equations are kept, so this solves one small system).
  void fit();
  bool fitted() const { return fitted_; }
  int samples() const { return samples_; }
  std::vector<double> predict(const Genome& g) const;

private:
  using Features = std::vector<std::pair<std::size_t, double>>; // sparse: index, value; 0 = the intercept
  Features features_of(const Genome& g) const;

  const Encoding* enc_;
  std::vector<std::size_t> node_feature_; // per super-node: its class's first feature (device index 1)
  std::size_t rewrite_offset_ = 0;        // the first rewrite gene's first feature
  std::vector<std::size_t> rewrite_feature_;
  std::vector<std::pair<std::size_t, std::size_t>> joined_; // super-node pairs joined by a tensor
  std::vector<std::size_t> joined_feature_;                 // per pair: its class pair's feature
  std::size_t features_ = 0;
  std::size_t targets_ = 0;
  Eigen::MatrixXd gram_; // X^T X, made by the first add()
  Eigen::MatrixXd rhs_;  // X^T Y, one column per target
  Eigen::MatrixXd weights_;
  double ridge_;
  int samples_ = 0;
  bool fitted_ = false;
};

} // namespace hs::pareto
