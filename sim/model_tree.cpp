#include "sim/model_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace hs {

namespace {

struct LeafFit {
  double intercept = 0.0, slope = 0.0, sse = 0.0; // with a leaf feature: launch seconds, seconds per work
};

// Log seconds a leaf predicts.
double leaf_value(const LeafFit& f, const std::vector<double>& features, const ModelTreeOptions& o) {
  if (o.slope_feature < 0) return f.intercept;
  const double w = std::expm1(features[static_cast<std::size_t>(o.slope_feature)]);
  return std::log(std::max(f.intercept + f.slope * w, 1e-12));
}

// The leaf feature holds log(1 + work): the leaf's law is t = launch + work / rate, a regime's fixed cost
// plus its throughput, fitted by least squares on relative residuals with launch, 1 / rate >= 0. Without a
// leaf feature the leaf is the mean log time.
LeafFit fit_leaf(const std::vector<const TreeSample*>& s, std::size_t begin, std::size_t end,
                 const ModelTreeOptions& o) {
  LeafFit f;
  const auto n = static_cast<double>(end - begin);
  if (o.slope_feature < 0) {
    for (std::size_t i = begin; i < end; ++i)
      f.intercept += s[i]->target / n;
  } else {
    // Rows (1/t, w/t) . (launch, per_work) = 1.
    double saa = 0.0, sab = 0.0, sbb = 0.0, sa = 0.0, sb = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
      const double t = std::exp(s[i]->target);
      const double w = std::expm1(s[i]->features[static_cast<std::size_t>(o.slope_feature)]);
      const double a = 1.0 / t, b = w / t;
      saa += a * a;
      sab += a * b;
      sbb += b * b;
      sa += a;
      sb += b;
    }
    const double det = saa * sbb - sab * sab;
    double launch = det > 1e-12 * saa * sbb ? (sa * sbb - sb * sab) / det : 0.0;
    double per_work = det > 1e-12 * saa * sbb ? (saa * sb - sab * sa) / det : 0.0;
    if (launch < 0 || per_work <= 0 || !(det > 1e-12 * saa * sbb)) {
      if (sbb > 0 && sb > 0) { // work alone
        launch = 0.0;
        per_work = sb / sbb;
      } else { // no work (views): launch alone
        launch = sa / saa;
        per_work = 0.0;
      }
    }
    f.intercept = launch;
    f.slope = per_work;
  }
  for (std::size_t i = begin; i < end; ++i) {
    const double r = s[i]->target - leaf_value(f, s[i]->features, o);
    f.sse += r * r;
  }
  return f;
}

struct Split {
  int feature = -1;
  double threshold = 0.0;
  double sse = std::numeric_limits<double>::infinity();
};

Split best_split(std::vector<const TreeSample*>& s, const ModelTreeOptions& o, std::size_t features) {
  Split best;
  for (std::size_t f = 0; f < features; ++f) {
    std::stable_sort(s.begin(), s.end(), [f](const TreeSample* a, const TreeSample* b) {
      return a->features[f] < b->features[f];
    });
    for (std::size_t i = o.min_leaf; i + o.min_leaf <= s.size(); ++i) {
      if (s[i - 1]->features[f] == s[i]->features[f]) continue;
      const double sse = fit_leaf(s, 0, i, o).sse + fit_leaf(s, i, s.size(), o).sse;
      if (sse < best.sse)
        best = {static_cast<int>(f), 0.5 * (s[i - 1]->features[f] + s[i]->features[f]), sse};
    }
  }
  return best;
}

} // namespace

ModelTree::ModelTree(std::vector<std::string> feature_names, const std::vector<TreeSample>& samples,
                     const ModelTreeOptions& options)
    : names_(std::move(feature_names)), options_(options) {
  if (samples.empty()) throw std::invalid_argument("ModelTree: no samples");
  std::vector<const TreeSample*> s;
  for (const auto& t : samples) {
    if (t.features.size() != names_.size())
      throw std::invalid_argument("ModelTree: a sample has " + std::to_string(t.features.size()) +
                                  " features, expected " + std::to_string(names_.size()));
    s.push_back(&t);
  }
  grow(s, 0);
}

int ModelTree::grow(std::vector<const TreeSample*>& samples, int depth) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  const LeafFit here = fit_leaf(samples, 0, samples.size(), options_);
  nodes_[static_cast<std::size_t>(id)].samples = samples.size();
  Split split;
  if (depth < options_.max_depth && samples.size() >= 2 * options_.min_leaf && here.sse > 0)
    split = best_split(samples, options_, names_.size());
  if (split.feature < 0 || here.sse - split.sse < options_.min_gain * here.sse) {
    Node& leaf = nodes_[static_cast<std::size_t>(id)];
    leaf.intercept = here.intercept;
    leaf.slope = here.slope;
    leaf.leaf_index = leaves_++;
    return id;
  }
  std::vector<const TreeSample*> left, right;
  for (const TreeSample* t : samples)
    (t->features[static_cast<std::size_t>(split.feature)] <= split.threshold ? left : right).push_back(t);
  nodes_[static_cast<std::size_t>(id)].feature = split.feature;
  nodes_[static_cast<std::size_t>(id)].threshold = split.threshold;
  const int l = grow(left, depth + 1);
  const int r = grow(right, depth + 1);
  nodes_[static_cast<std::size_t>(id)].left = l;
  nodes_[static_cast<std::size_t>(id)].right = r;
  return id;
}

const ModelTree::Node& ModelTree::leaf_node(const std::vector<double>& features) const {
  if (nodes_.empty()) throw std::logic_error("ModelTree: predicting from an empty tree");
  if (features.size() != names_.size())
    throw std::invalid_argument("ModelTree: " + std::to_string(features.size()) + " features, expected " +
                                std::to_string(names_.size()));
  const Node* n = &nodes_.front();
  while (n->feature >= 0)
    n = &nodes_[static_cast<std::size_t>(
        features[static_cast<std::size_t>(n->feature)] <= n->threshold ? n->left : n->right)];
  return *n;
}

double ModelTree::predict(const std::vector<double>& features) const {
  const Node& n = leaf_node(features);
  return leaf_value({n.intercept, n.slope, 0.0}, features, options_);
}

int ModelTree::leaf_of(const std::vector<double>& features) const {
  return leaf_node(features).leaf_index;
}

int ModelTree::leaf_count() const {
  return leaves_;
}

std::string ModelTree::describe() const {
  std::string out;
  if (!nodes_.empty()) describe(0, 0, out);
  return out;
}

Json ModelTree::to_json() const {
  Json nodes = Json::array();
  for (const Node& n : nodes_) {
    if (n.feature >= 0)
      nodes.push_back({{"feature", n.feature},
                       {"threshold", n.threshold},
                       {"left", n.left},
                       {"right", n.right},
                       {"samples", n.samples}});
    else
      nodes.push_back(
          {{"leaf", n.leaf_index}, {"intercept", n.intercept}, {"slope", n.slope}, {"samples", n.samples}});
  }
  return {{"features", names_}, {"slope_feature", options_.slope_feature}, {"nodes", nodes}};
}

ModelTree ModelTree::from_json(const JsonNode& j) {
  j.expect_only({"features", "slope_feature", "nodes"});
  ModelTree t;
  t.names_ = j.at("features").as_string_list();
  const auto width = static_cast<long long>(t.names_.size());
  t.options_.slope_feature = static_cast<int>(j.at("slope_feature").as_integer(-1, width - 1));
  const std::vector<JsonNode> nodes = j.at("nodes").items();
  if (nodes.empty()) j.at("nodes").fail("a tree needs at least one node");
  const auto count = static_cast<long long>(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const JsonNode& n = nodes[i];
    Node node;
    node.samples = static_cast<std::size_t>(n.at("samples").as_integer(0, 1LL << 40));
    if (n.has("leaf")) {
      n.expect_only({"leaf", "intercept", "slope", "samples"});
      node.leaf_index = static_cast<int>(n.at("leaf").as_integer(t.leaves_, t.leaves_));
      ++t.leaves_;
      node.intercept = n.at("intercept").as_number();
      node.slope = n.at("slope").as_number();
    } else {
      n.expect_only({"feature", "threshold", "left", "right", "samples"});
      node.feature = static_cast<int>(n.at("feature").as_integer(0, width - 1));
      node.threshold = n.at("threshold").as_number();
      // Children come after their parent, so every path ends at a leaf.
      const auto here = static_cast<long long>(i);
      node.left = static_cast<int>(n.at("left").as_integer(here + 1, count - 1));
      node.right = static_cast<int>(n.at("right").as_integer(here + 1, count - 1));
    }
    t.nodes_.push_back(node);
  }
  return t;
}

void ModelTree::describe(int id, int depth, std::string& out) const {
  const Node& n = nodes_[static_cast<std::size_t>(id)];
  char line[256];
  const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  if (n.feature >= 0) {
    std::snprintf(line, sizeof line, "%s%s <= %.4g (%zu samples)\n", indent.c_str(),
                  names_[static_cast<std::size_t>(n.feature)].c_str(), n.threshold, n.samples);
    out += line;
    describe(n.left, depth + 1, out);
    describe(n.right, depth + 1, out);
    return;
  }
  if (options_.slope_feature < 0)
    std::snprintf(line, sizeof line, "%sleaf %d: %.4f (%zu samples)\n", indent.c_str(), n.leaf_index,
                  n.intercept, n.samples);
  else
    std::snprintf(line, sizeof line, "%sleaf %d: t = %.3g s + work / %.4g per s (%zu samples)\n",
                  indent.c_str(), n.leaf_index, n.intercept, n.slope > 0 ? 1.0 / n.slope : 0.0, n.samples);
  out += line;
}

} // namespace hs
