#include "cli/sweep_spec.hpp"

#include "cli/platform_patch.hpp"
#include "cli/sweep_metrics.hpp"
#include "policies/policy_runner.hpp"
#include "sim/nearest_name.hpp"
#include "sim/platform.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;
using Kind = SweepAxis::Kind;

constexpr std::size_t kMaxPoints = 100000;
const std::vector<std::string> kRunAxes = {"platform", "workload", "policy", "engine", "seed"};
const std::vector<std::string> kEngines = {"simgrid", "evaluator", "analytic"};

// A relative file name in the sweep file means a file beside it; preset names and builder specs stay.
std::string resolve(const std::string& name, const std::string& base_directory) {
  if (!looks_like_a_path(name) || fs::path(name).is_absolute()) return name;
  return (fs::path(base_directory) / name).lexically_normal().string();
}

std::string label_of(const JsonNode& v) {
  return v.raw().is_string() ? v.raw().get<std::string>() : v.raw().dump();
}

void check_engine(const JsonNode& v) {
  const std::string e = v.as_string();
  if (std::find(kEngines.begin(), kEngines.end(), e) == kEngines.end())
    v.fail("unknown engine '" + e + "'" + did_you_mean(e, kEngines) + "; known: " + name_list(kEngines));
}

void check_policy(const JsonNode& v) {
  try {
    require_known_policy(v.as_string());
  } catch (const std::invalid_argument& e) {
    v.fail(e.what());
  }
}

// The numbers of a quantity axis in SI units, when every value is a number or a quantity with a unit.
std::vector<double> numbers_of(const std::vector<JsonNode>& values) {
  std::vector<double> out;
  for (const auto& v : values) {
    if (v.raw().is_number()) {
      out.push_back(v.as_number());
      continue;
    }
    if (!v.raw().is_string()) return {};
    const std::string text = v.raw().get<std::string>();
    try {
      out.push_back(units::parse(text, unit_family(text).value_or(units::Quantity::Plain)));
    } catch (const std::invalid_argument&) {
      return {}; // a label such as "fp16"
    }
  }
  return out;
}

SweepAxis parse_axis(const JsonNode& a, const std::string& base_directory) {
  a.expect_only({"name", "values", "path", "variants", "workload_parameter"});
  SweepAxis axis;
  axis.name = a.at("name").as_string();
  axis.place = a.path();
  if (axis.name.empty()) a.at("name").fail("an axis needs a name");
  const bool is_run_axis = std::find(kRunAxes.begin(), kRunAxes.end(), axis.name) != kRunAxes.end();
  std::vector<JsonNode> values;
  if (auto variants = a.find("variants")) {
    axis.kind = Kind::PlatformVariant;
    values = variants->items();
    for (const auto& v : values)
      axis.labels.push_back(v.at("label").as_string());
  } else {
    values = a.at("values").items();
    for (const auto& v : values)
      axis.labels.push_back(label_of(v));
    if (auto path = a.find("path")) {
      axis.kind = Kind::PlatformField;
      axis.target = path->as_string();
    } else if (auto key = a.find("workload_parameter")) {
      axis.kind = Kind::WorkloadParameter;
      axis.target = key->as_string();
    } else if (!is_run_axis) {
      a.at("name").fail("axis '" + axis.name + "' needs \"path\" (a platform field), \"variants\" or " +
                        "\"workload_parameter\", or must be named one of " + name_list(kRunAxes));
    } else {
      axis.kind = axis.name == "platform"   ? Kind::Platform
                  : axis.name == "workload" ? Kind::Workload
                  : axis.name == "policy"   ? Kind::Policy
                  : axis.name == "engine"   ? Kind::Engine
                                            : Kind::Seed;
    }
  }
  if (values.empty()) a.fail("axis '" + axis.name + "' has no values: the grid would be empty");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const JsonNode& v = values[i];
    if (axis.kind == Kind::Seed) v.as_integer(0, 1LL << 62);
    if (axis.kind == Kind::Engine) check_engine(v);
    if (axis.kind == Kind::Policy) check_policy(v);
    if (axis.kind == Kind::Platform || axis.kind == Kind::Workload) {
      axis.values.push_back(resolve(v.as_string(), base_directory));
      continue;
    }
    if (axis.kind == Kind::WorkloadParameter && !v.raw().is_string() && !v.raw().is_number())
      v.fail("expected a number or a string");
    axis.values.push_back(v.raw());
  }
  for (std::size_t i = 0; i < axis.labels.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (axis.labels[i] == axis.labels[j])
        values[i].fail("value '" + axis.labels[i] + "' appears twice on axis '" + axis.name + "'");
  if (axis.kind == Kind::Seed || axis.kind == Kind::PlatformField || axis.kind == Kind::WorkloadParameter)
    axis.numbers = numbers_of(values);
  return axis;
}

void parse_plots(const JsonNode& root, SweepSpec& spec) {
  auto plots = root.find("plots");
  if (!plots) return;
  const auto axis = [&](const std::string& name) { return spec.find_axis(name); };
  const auto is_metric = [&](const std::string& m) {
    return std::find(spec.metrics.begin(), spec.metrics.end(), m) != spec.metrics.end();
  };
  for (const auto& p : plots->items()) {
    p.expect_only({"x", "y", "series", "where"});
    SweepPlot plot{p.at("x").as_string(), p.at("y").as_string(), p.string_or("series", ""), {}};
    if (auto where = p.find("where"))
      for (const auto& [name, value] : where->members()) {
        const SweepAxis* a = axis(name);
        const std::string label = value.raw().is_string() ? value.as_string() : value.raw().dump();
        if (!a || name == plot.x || name == plot.series)
          value.fail("'" + name + "' is not an axis of the sweep (other than x and the series)");
        if (std::find(a->labels.begin(), a->labels.end(), label) == a->labels.end())
          value.fail("'" + label + "' is not a value of axis '" + name + "'" +
                     did_you_mean(label, a->labels));
        plot.where.emplace_back(name, label);
      }
    const SweepAxis* x = axis(plot.x);
    if (x && !x->numeric())
      p.at("x").fail("axis '" + plot.x +
                     "' is not numeric (its values are labels); plot against a numeric "
                     "axis or a metric, and use '" +
                     plot.x + "' as the series");
    if (!x && !is_metric(plot.x))
      p.at("x").fail("'" + plot.x + "' is neither an axis nor one of the sweep's metrics");
    if (!is_metric(plot.y)) p.at("y").fail("'" + plot.y + "' is not one of the sweep's metrics");
    if (!plot.series.empty() && (!axis(plot.series) || plot.series == plot.x))
      p.at("series").fail("'" + plot.series + "' is not an axis of the sweep (other than x)");
    spec.plots.push_back(plot);
  }
}

} // namespace

std::size_t SweepSpec::axis_index(const std::string& axis_name) const {
  std::size_t i = 0;
  while (i < axes.size() && axes[i].name != axis_name)
    ++i;
  return i;
}

std::size_t SweepSpec::point_count() const {
  std::size_t n = 1;
  for (const auto& a : axes)
    n *= a.labels.size();
  return n;
}

SweepSpec parse_sweep(const std::string& text, const std::string& file, const std::string& base_directory) {
  SweepSpec spec;
  spec.file = file;
  spec.canonical = parse_json_text(text, file);
  const JsonNode root(spec.canonical, file, "");
  root.expect_format("heterosim-sweep", true);
  root.expect_only({"format", "version", "name", "description", "base", "axes", "metrics", "plots",
                    "baseline", "base_directory"});
  spec.base_directory = root.string_or("base_directory", base_directory);
  spec.canonical["base_directory"] = spec.base_directory;
  spec.name = root.string_or("name", fs::path(file).stem().string());
  const JsonNode base = root.at("base");
  base.expect_only({"platform", "workload", "policy", "engine", "seed"});
  spec.platform = resolve(base.at("platform").as_string(), spec.base_directory);
  spec.workload = resolve(base.at("workload").as_string(), spec.base_directory);
  if (auto p = base.find("policy")) {
    check_policy(*p);
    spec.policy = p->as_string();
  }
  if (auto e = base.find("engine")) {
    check_engine(*e);
    spec.engine = e->as_string();
  }
  if (auto s = base.find("seed")) spec.seed = static_cast<std::uint64_t>(s->as_integer(0, 1LL << 62));
  std::set<std::string> names;
  for (const auto& a : root.at("axes").items()) {
    spec.axes.push_back(parse_axis(a, spec.base_directory));
    if (!names.insert(spec.axes.back().name).second)
      a.at("name").fail("two axes are named '" + spec.axes.back().name + "'");
  }
  if (spec.point_count() > kMaxPoints)
    root.at("axes").fail("the grid has " + std::to_string(spec.point_count()) + " points; at most " +
                         std::to_string(kMaxPoints) + " are allowed");
  if (auto m = root.find("metrics")) {
    for (const auto& item : m->items()) {
      check_sweep_metric(item.as_string(), item);
      if (names.count(item.as_string())) item.fail("metric '" + item.as_string() + "' has an axis's name");
      spec.metrics.push_back(item.as_string());
    }
    if (spec.metrics.empty()) m->fail("lists no metric");
  } else {
    spec.metrics = {"latency_s", "energy_j", "peak_memory_bytes"};
  }
  parse_plots(root, spec);
  if (auto b = root.find("baseline")) {
    b->expect_only({"axis", "value"});
    spec.baseline_axis = b->at("axis").as_string();
    const JsonNode value = b->at("value");
    spec.baseline_value = value.raw().is_string() ? value.as_string() : value.raw().dump();
    const SweepAxis* a = spec.find_axis(spec.baseline_axis);
    if (!a) b->at("axis").fail("'" + spec.baseline_axis + "' is not an axis of the sweep");
    if (std::find(a->labels.begin(), a->labels.end(), spec.baseline_value) == a->labels.end())
      value.fail("'" + spec.baseline_value + "' is not a value of axis '" + spec.baseline_axis + "'" +
                 did_you_mean(spec.baseline_value, a->labels));
  }
  return spec;
}

SweepSpec load_sweep(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", path_exists(path) ? "cannot be read" : "no such file");
  std::stringstream text;
  text << in.rdbuf();
  const auto dir = fs::absolute(fs::path(path)).parent_path().lexically_normal().string();
  return parse_sweep(text.str(), path, dir);
}

namespace {

// "bert:layers=12" with batch=8 is "bert:layers=12,batch=8"; an existing key is replaced in place.
std::string with_parameter(const std::string& workload, const std::string& key, const std::string& value,
                           const JsonNode& where) {
  const auto colon = workload.find(':');
  if (looks_like_a_path(workload))
    where.fail("a workload_parameter axis needs a builder spec (like random:ops=100) as the workload, not "
               "the file '" +
               workload + "'");
  if (colon == std::string::npos) return workload + ":" + key + "=" + value;
  std::string out = workload.substr(0, colon + 1);
  bool replaced = false;
  std::stringstream params(workload.substr(colon + 1));
  std::string item;
  while (std::getline(params, item, ',')) {
    if (item.empty()) continue;
    if (item.substr(0, item.find('=')) == key) {
      item = key + "=" + value;
      replaced = true;
    }
    out += (out.back() == ':' ? "" : ",") + item;
  }
  if (!replaced) out += (out.back() == ':' ? "" : ",") + key + "=" + value;
  return out;
}

JsonNode value_node(const SweepSpec& spec, const SweepAxis& axis, std::size_t i) {
  const char* list = axis.kind == Kind::PlatformVariant ? ".variants[" : ".values[";
  return JsonNode(axis.values[i], spec.file, axis.place + list + std::to_string(i) + "]");
}

// The platform of one point: the template with the point's field and variant axes applied in axis order,
// checked by the platform loader.
Json patched_platform(const SweepSpec& spec, const SweepPoint& p, const std::vector<std::size_t>& choice,
                      std::map<std::string, Json>& templates) {
  auto it = templates.find(p.platform);
  if (it == templates.end()) {
    const std::string file = platform_file(p.platform);
    Json platform = read_json_file(file);
    // The point's copy is written elsewhere: a calibration beside the template is named by its full path.
    if (const auto c = platform.find("calibration"); c != platform.end() && c->is_string())
      if (const auto path = platform_calibration_path(c->get<std::string>(), file); path != *c)
        *c = std::filesystem::absolute(path).string();
    it = templates.emplace(p.platform, std::move(platform)).first;
  }
  Json platform = it->second;
  std::string places;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const SweepAxis& axis = spec.axes[a];
    const JsonNode v = value_node(spec, axis, choice[a]);
    if (axis.kind == Kind::PlatformField)
      set_platform_field(platform, axis.target, v,
                         JsonNode(Json(axis.target), spec.file, axis.place + ".path"));
    else if (axis.kind == Kind::PlatformVariant)
      apply_platform_variant(platform, v);
    else
      continue;
    places += (places.empty() ? "" : ", ") + v.path();
  }
  try {
    parse_platform(platform.dump(), p.platform);
  } catch (const InputError& e) {
    throw InputError(spec.file, places, "makes an invalid platform from '" + p.platform + "': " + e.what());
  }
  return platform;
}

// A platform is patched and checked once per combination of the platform axes' values, however many points
// (policies, seeds...) share it, and each template is read once.
struct PatchedPlatforms {
  std::map<std::string, Json> templates;
  std::map<std::pair<std::string, std::vector<std::size_t>>, Json> patched;

  const Json& get(const SweepSpec& spec, const SweepPoint& p, const std::vector<std::size_t>& choice) {
    std::pair<std::string, std::vector<std::size_t>> key{p.platform, {}};
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (spec.axes[a].kind == Kind::PlatformField || spec.axes[a].kind == Kind::PlatformVariant)
        key.second.push_back(choice[a]);
    auto it = patched.find(key);
    if (it == patched.end()) it = patched.emplace(key, patched_platform(spec, p, choice, templates)).first;
    return it->second;
  }
};

} // namespace

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  std::vector<SweepPoint> points;
  PatchedPlatforms platforms;
  const std::size_t n = spec.point_count();
  for (std::size_t index = 0; index < n; ++index) {
    SweepPoint p{index, {}, spec.platform, nullptr, spec.workload, spec.policy, spec.engine, spec.seed};
    std::vector<std::size_t> choice(spec.axes.size());
    std::size_t rest = index;
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
      choice[a] = rest % spec.axes[a].labels.size();
      rest /= spec.axes[a].labels.size();
    }
    bool patched = false;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      const SweepAxis& axis = spec.axes[a];
      const Json& v = axis.values[choice[a]];
      p.labels.push_back(axis.labels[choice[a]]);
      switch (axis.kind) {
      case Kind::Platform:
        p.platform = v.get<std::string>();
        break;
      case Kind::Workload:
        p.workload = v.get<std::string>();
        break;
      case Kind::Policy:
        p.policy = v.get<std::string>();
        break;
      case Kind::Engine:
        p.engine = v.get<std::string>();
        break;
      case Kind::Seed:
        p.seed = v.get<std::uint64_t>();
        break;
      case Kind::PlatformField:
      case Kind::PlatformVariant:
        patched = true;
        break;
      case Kind::WorkloadParameter:
        break;
      }
    }
    // Parameters apply after the workload axis chose the builder spec they change.
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (spec.axes[a].kind == Kind::WorkloadParameter)
        p.workload = with_parameter(p.workload, spec.axes[a].target, spec.axes[a].labels[choice[a]],
                                    value_node(spec, spec.axes[a], choice[a]));
    if (patched) p.platform_json = platforms.get(spec, p, choice);
    points.push_back(std::move(p));
  }
  return points;
}

} // namespace hs::cli
