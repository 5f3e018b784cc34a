#pragma once
// A model tree (Quinlan's M5, 1992): a regression tree whose leaves hold models. Here it predicts a
// kernel's log seconds from its named dimensions, so that one op kind can have several regimes (a library
// dispatching 1x1 convolutions to a GEMM path at batch 1 and to oneDNN otherwise), each with its own law:
// t = launch + work / rate, work being the leaf feature (log(1 + FLOPs) or log(1 + bytes)).
//
// Splits are chosen greedily by the largest drop in squared log error of the children's fits, on
// thresholds halfway between consecutive distinct values; ties go to the lower feature index and
// threshold, so the same samples always give the same tree.
//
// It lives in the core because it is a cost model: the framework model (sim/framework_model.hpp) costs
// graph ops with trees that validation/ fits and writes, and a tree read back predicts exactly what the
// fitted one did (JSON keeps every double to the bit).
#include "sim/json_input.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace hs {

struct TreeSample {
  std::vector<double> features;
  double target = 0.0;
};

struct ModelTreeOptions {
  int max_depth = 4;
  std::size_t min_leaf = 3;
  double min_gain = 0.01; // a split must remove this share of its node's squared error
  // The leaf feature (log(1 + work)); -1: leaves are constants (the mean target).
  int slope_feature = -1;
};

class ModelTree {
public:
  ModelTree() = default;
  // Throws std::invalid_argument for no samples or samples of unequal width.
  ModelTree(std::vector<std::string> feature_names, const std::vector<TreeSample>& samples,
            const ModelTreeOptions& options = {});

  double predict(const std::vector<double>& features) const;
  // The leaf a sample falls in, 0-based in the order leaves() lists them.
  int leaf_of(const std::vector<double>& features) const;
  int leaf_count() const;
  std::size_t feature_count() const { return names_.size(); }
  // One line per node, indented by depth: "m <= 1.5" splits and "leaf 2: log t = a + b x (n samples)".
  std::string describe() const;

  // {"features": [...], "slope_feature": i, "nodes": [...]}; from_json checks every index and names the
  // file and place of anything it refuses.
  Json to_json() const;
  static ModelTree from_json(const JsonNode& n);

private:
  struct Node {
    int feature = -1; // -1: a leaf
    double threshold = 0.0;
    int left = -1, right = -1;
    double intercept = 0.0, slope = 0.0;
    std::size_t samples = 0;
    int leaf_index = -1;
  };
  int grow(std::vector<const TreeSample*>& samples, int depth);
  const Node& leaf_node(const std::vector<double>& features) const;
  void describe(int node, int depth, std::string& out) const;

  std::vector<std::string> names_;
  ModelTreeOptions options_;
  std::vector<Node> nodes_;
  int leaves_ = 0;
};

} // namespace hs
