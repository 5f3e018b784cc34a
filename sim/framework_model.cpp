#include "sim/framework_model.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace hs {

namespace {

template <typename Lookup>
std::vector<double> tree_features(const FrameworkModel::Kind& k, Lookup dim, double flops, double bytes) {
  std::vector<double> x;
  x.reserve(k.dims.size() + 2);
  for (const auto& d : k.dims)
    x.push_back(std::log1p(dim(d)));
  x.push_back(std::log1p(flops));
  x.push_back(std::log1p(bytes));
  return x;
}

const ModelTree& tree_at(const std::map<std::string, FrameworkModel::Kind>& kinds, const std::string& kind,
                         int threads) {
  const auto it = kinds.find(kind);
  if (it == kinds.end()) throw std::invalid_argument("no training point of kind '" + kind + "'");
  const auto tree = it->second.by_threads.find(threads);
  if (tree == it->second.by_threads.end())
    throw std::invalid_argument("'" + kind + "' was not measured at " + std::to_string(threads) +
                                (threads == 1 ? " thread" : " threads"));
  return tree->second;
}

} // namespace

bool FrameworkModel::measured_at(int threads) const {
  for (const auto& [kind, k] : kinds_)
    if (!k.by_threads.count(threads)) return false;
  return !kinds_.empty();
}

std::vector<int> FrameworkModel::thread_counts() const {
  std::vector<int> counts;
  if (kinds_.empty()) return counts;
  for (const auto& [n, tree] : kinds_.begin()->second.by_threads)
    if (measured_at(n)) counts.push_back(n);
  return counts;
}

double FrameworkModel::seconds(const std::string& kind, const std::map<std::string, double>& dims,
                               double flops, double bytes, int threads) const {
  const ModelTree& tree = tree_at(kinds_, kind, threads);
  const auto dim = [&](const std::string& d) {
    const auto it = dims.find(d);
    return it == dims.end() ? 0.0 : it->second;
  };
  return std::exp(tree.predict(tree_features(kinds_.at(kind), dim, flops, bytes)));
}

std::optional<double> FrameworkModel::op_seconds(const Op& op, int threads) const {
  if (op.dims.empty() || op.precision != precision) return std::nullopt;
  const auto alias = kind_aliases.find(op.kind);
  const std::string& kind = alias == kind_aliases.end() ? op.kind : alias->second;
  const auto it = kinds_.find(kind);
  if (it == kinds_.end()) return std::nullopt;
  const auto dim = [&](const std::string& d) {
    if (const auto v = op.dims.find(d); v != op.dims.end()) return v->second;
    const auto g = graph_dimensions.find(d);
    return g == graph_dimensions.end() ? 0.0 : g->second;
  };
  const ModelTree& tree = tree_at(kinds_, kind, threads);
  return std::exp(tree.predict(tree_features(it->second, dim, op.flops, op.bytes_moved())));
}

Json FrameworkModel::to_json() const {
  Json kinds = Json::object();
  for (const auto& [name, k] : kinds_) {
    Json trees = Json::object();
    for (const auto& [n, tree] : k.by_threads)
      trees[std::to_string(n)] = tree.to_json();
    kinds[name] = {{"dimensions", k.dims}, {"trees_by_threads", trees}};
  }
  return {{"format", "heterosim-framework-model"},
          {"version", 1},
          {"source", source},
          {"precision", precision},
          {"kind_aliases", kind_aliases},
          {"graph_dimensions", graph_dimensions},
          {"kinds", kinds}};
}

FrameworkModel FrameworkModel::load(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  root.expect_format("heterosim-framework-model", true);
  root.expect_only({"format", "version", "source", "precision", "kind_aliases", "graph_dimensions", "kinds"});
  FrameworkModel m;
  m.source = root.string_or("source", path);
  m.precision = root.string_or("precision", "fp32");
  if (auto a = root.find("kind_aliases"))
    for (const auto& [from, to] : a->members())
      m.kind_aliases[from] = to.as_string();
  if (auto g = root.find("graph_dimensions"))
    for (const auto& [name, v] : g->members())
      m.graph_dimensions[name] = v.as_number();
  for (const auto& [name, node] : root.at("kinds").members()) {
    node.expect_only({"dimensions", "trees_by_threads"});
    Kind k;
    k.dims = node.at("dimensions").as_string_list();
    for (const auto& [threads, tree] : node.at("trees_by_threads").members()) {
      const int n = std::atoi(threads.c_str());
      if (n < 1 || std::to_string(n) != threads) tree.fail("a thread count must be a positive integer");
      k.by_threads.emplace(n, ModelTree::from_json(tree));
      if (k.by_threads.at(n).feature_count() != k.dims.size() + 2)
        tree.fail("its features are not the kind's dimensions, log_flops and log_bytes");
    }
    if (k.by_threads.empty()) node.at("trees_by_threads").fail("holds no tree");
    m.kinds_.emplace(name, std::move(k));
  }
  if (m.kinds_.empty()) root.at("kinds").fail("holds no op kind");
  return m;
}

} // namespace hs
