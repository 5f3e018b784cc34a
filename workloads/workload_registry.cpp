#include "workloads/workload_registry.hpp"

#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "sim/json_input.hpp"
#include "sim/key_values.hpp"
#include "sim/nearest_name.hpp"
#include "sim/units.hpp"
#include "workloads/precision_change.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace hs {

namespace {
std::string keys_of(const std::vector<WorkloadParameter>& known) {
  std::vector<std::string> keys;
  for (const auto& k : known)
    keys.push_back(k.key);
  return name_list(keys);
}
bool is_known(const std::vector<WorkloadParameter>& known, const std::string& key) {
  return std::any_of(known.begin(), known.end(), [&](const WorkloadParameter& k) { return k.key == key; });
}
} // namespace

WorkloadParams::WorkloadParams(std::string builder, std::map<std::string, std::string> values,
                               std::uint64_t seed, const std::vector<WorkloadParameter>& known)
    : builder_(std::move(builder)), values_(std::move(values)), seed_(seed), known_(&known) {
  for (const auto& [k, v] : values_)
    if (!is_known(known, k))
      throw InputError(builder_, k, "unknown parameter (" + builder_ + " takes: " + keys_of(known) + ")");
}

std::string WorkloadBuilder::parameter_line() const {
  std::string line;
  for (const auto& p : parameters) {
    line += (line.empty() ? "" : " ") + p.key + "=" + p.value;
    if (!p.note.empty()) line += " (" + p.note + ")";
  }
  return line;
}

const std::string* WorkloadParams::take(const std::string& key) {
  if (!is_known(*known_, key))
    throw std::logic_error("workload builder '" + builder_ + "' reads '" + key +
                           "', which its parameter list does not name");
  used_[key] = true;
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

double WorkloadParams::number(const std::string& key, double fallback, double min, double max) {
  const std::string* v = take(key);
  if (!v) return fallback;
  double x = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || ptr != v->data() + v->size())
    throw InputError(builder_, key, "'" + *v + "' is not a number");
  // NaN compares false with everything, so test that the value is inside the range, not outside it.
  if (!std::isfinite(x) || !(x >= min && x <= max))
    throw InputError(builder_, key,
                     "must be a finite number between " + std::to_string(min) + " and " +
                         std::to_string(max) + " (got '" + *v + "')");
  return x;
}

long long WorkloadParams::integer(const std::string& key, long long fallback, long long min, long long max) {
  const std::string* v = take(key);
  if (!v) return fallback;
  long long x = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || ptr != v->data() + v->size())
    throw InputError(builder_, key, "'" + *v + "' is not an integer");
  if (x < min || x > max)
    throw InputError(builder_, key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
  return x;
}

std::string WorkloadParams::text(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& allowed) {
  const std::string* v = take(key);
  if (!v) return fallback;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
    std::string list;
    for (const auto& a : allowed)
      list += (list.empty() ? "" : ", ") + a;
    throw InputError(builder_, key, "'" + *v + "' is not one of: " + list);
  }
  return *v;
}

double WorkloadParams::bytes(const std::string& key, double fallback) {
  const std::string* v = take(key);
  if (!v) return fallback;
  double x = 0;
  try {
    x = units::parse(*v, units::Quantity::Bytes);
  } catch (const std::exception& e) {
    throw InputError(builder_, key, e.what());
  }
  if (!(x > 0) || !std::isfinite(x))
    throw InputError(builder_, key, "must be a positive size (got '" + *v + "')");
  return x;
}

std::vector<std::string> WorkloadParams::names(const std::string& key, const std::string& fallback) {
  const std::string* v = take(key);
  return parse_name_list(builder_, key, v ? *v : fallback);
}

void WorkloadParams::expect_all_used() const {
  for (const auto& [k, v] : values_)
    if (!used_.count(k)) throw InputError(builder_, k, "not used with the other parameters given");
}

Registry<WorkloadBuilder>& workload_builders() {
  static Registry<WorkloadBuilder> registry("workload builder");
  return registry;
}

Registry<WorkloadFileFormat>& workload_file_formats() {
  static Registry<WorkloadFileFormat> registry("workload file format");
  return registry;
}

namespace {
Graph build_workload(const std::string& spec, std::uint64_t seed);
} // namespace

Graph load_workload(const std::string& spec, std::uint64_t seed) {
  Graph g = build_workload(spec, seed);
  // Every source (file, importer, builder) goes through here: an empty graph would run and report 0 s.
  if (g.op_count() == 0) throw InputError(spec, "", "the graph has no ops");
  return g;
}

namespace {
Graph load_workload_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (const WorkloadFileFormat* f = workload_file_formats().find(ext)) return f->load(path);
  return load_graph(path);
}

// "file:precision=fp16": a graph file with options, which only a file's own precision can be today.
Graph load_workload_file_with_options(const std::string& spec, std::size_t colon) {
  const std::string path = spec.substr(0, colon);
  auto values = parse_key_values(spec, spec.substr(colon + 1));
  static const std::vector<WorkloadParameter> known = {{"precision", "as in the file", ""}};
  WorkloadParams params(path, std::move(values), 0, known);
  const std::string precision = params.text("precision", "", {"fp64", "fp32", "fp16", "bf16"});
  params.expect_all_used();
  Graph g = load_workload_file(path);
  return precision.empty() ? g : with_precision(std::move(g), precision);
}

Graph build_workload(const std::string& spec, std::uint64_t seed) {
  if (path_exists(spec)) return load_workload_file(spec);
  const auto colon = spec.find(':');
  if (colon != std::string::npos && path_exists(spec.substr(0, colon)))
    return load_workload_file_with_options(spec, colon);
  if (looks_like_a_path(spec)) throw InputError(spec, "", "no such file");
  const std::string name = spec.substr(0, colon);
  const WorkloadBuilder* b = workload_builders().find(name);
  if (!b) {
    const auto known = workload_builders().names();
    throw InputError(spec, "",
                     "no such file, and no workload builder '" + name + "'" + did_you_mean(name, known) +
                         " (builders: " + name_list(known) + ")");
  }
  auto values = colon == std::string::npos ? std::map<std::string, std::string>{}
                                           : parse_key_values(spec, spec.substr(colon + 1));
  WorkloadParams params(name, std::move(values), seed, b->parameters);
  Graph g = b->build(params);
  params.expect_all_used();
  return g;
}
} // namespace

} // namespace hs
