#include "sim/calibration.hpp"

#include "sim/data_directory.hpp"
#include "sim/data_files.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace hs {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return !name.empty() && std::find(names.begin(), names.end(), name) != names.end();
}

void load_memory_figures(const JsonNode& node, Calibration::Entry& e) {
  if (auto me = node.find("memory_efficiency")) e.memory_efficiency = me->as_fraction();
  if (auto factors = node.find("memory_time_factor"))
    for (const auto& [kind, v] : factors->members()) {
      v.expect_op_kind_key(kind, false);
      const double f = v.as_number();
      if (!(f > 0) || !std::isfinite(f)) v.fail("must be a positive number");
      e.memory_time_factor[kind] = f;
    }
}

// The parameters an entry overrides: the same fields in both versions.
void load_parameters(const JsonNode& node, Calibration::Entry& e) {
  if (auto eff = node.find("efficiency"))
    for (const auto& [kind, v] : eff->members()) {
      v.expect_op_kind_key(kind, true);
      e.compute_efficiency[kind] = v.as_fraction();
    }
  load_memory_figures(node, e);
  if (auto systems = node.find("by_memory_type"))
    for (const auto& [type, system] : systems->members()) {
      system.expect_only({"memory_efficiency", "memory_time_factor"});
      Calibration::Entry probe;
      load_memory_figures(system, probe);
      if (!probe.memory_efficiency) system.fail("names no memory_efficiency");
      e.by_memory_type[type] = {*probe.memory_efficiency, probe.memory_time_factor};
    }
  if (auto lo = node.find("launch_overhead")) e.launch_overhead = lo->as_quantity(units::Quantity::Time);
  if (auto io = node.find("issue_overhead")) e.issue_overhead = io->as_quantity(units::Quantity::Time);
  if (auto tiers = node.find("memory_tiers"))
    for (const auto& t : tiers->items()) {
      t.expect_only({"up_to", "bandwidth", "source"});
      Calibration::MemoryTier tier{t.at("up_to").as_quantity(units::Quantity::Bytes),
                                   t.at("bandwidth").as_quantity(units::Quantity::Bandwidth)};
      if (!(tier.up_to > 0)) t.at("up_to").fail("must be positive");
      if (!(tier.bandwidth > 0)) t.at("bandwidth").fail("must be positive");
      if (!e.memory_tiers.empty() && tier.up_to <= e.memory_tiers.back().up_to)
        t.at("up_to").fail("tiers must be listed by increasing size");
      e.memory_tiers.push_back(tier);
    }
  if (auto structure = node.find("gemm_structure")) {
    structure->expect_only({"method", "pack_bandwidth", "im2col_bandwidth", "source"});
    if (structure->at("method").as_string() != "packed")
      structure->at("method").fail("unknown GEMM loop structure (known: packed)");
    Calibration::Entry::GemmStructure g;
    for (auto [key, value] : {std::pair{"pack_bandwidth", &g.pack_bandwidth},
                              std::pair{"im2col_bandwidth", &g.im2col_bandwidth}}) {
      *value = structure->at(key).as_quantity(units::Quantity::Bandwidth);
      if (!(*value > 0)) structure->at(key).fail("must be positive");
    }
    e.gemm_structure = g;
  }
}

WaveParams load_wave(const JsonNode& n) {
  n.expect_only({"peak_efficiency", "tile_intensity_knee", "memory_efficiency", "launch_overhead",
                 "watts_per_tflops", "transposed_a_efficiency", "tile_k_overhead", "source"});
  WaveParams w;
  const auto positive = [&](const char* key, double& v) {
    v = n.at(key).as_number();
    if (!(v > 0)) n.at(key).fail("must be positive");
  };
  positive("peak_efficiency", w.peak_efficiency);
  positive("tile_intensity_knee", w.tile_intensity_knee);
  positive("memory_efficiency", w.memory_efficiency);
  w.launch_seconds = n.at("launch_overhead").as_quantity(units::Quantity::Time);
  w.watts_per_tflops = n.quantity_or("watts_per_tflops", units::Quantity::Plain, 0.0);
  if (auto t = n.find("transposed_a_efficiency")) w.transposed_a_efficiency = t->as_fraction();
  w.tile_k_overhead = n.quantity_or("tile_k_overhead", units::Quantity::Plain, 0.0);
  return w;
}

void load_framework_model(const JsonNode& node, Calibration::Entry& e) {
  const auto threads = node.find("intra_op_threads");
  const auto file = node.find("framework_model");
  if (!file) {
    if (threads) threads->fail("applies only with a framework_model");
    return;
  }
  e.framework_file = (std::filesystem::path(node.file()).parent_path() / file->as_string()).string();
  if (!path_exists(e.framework_file)) file->fail("no such file: " + e.framework_file);
  e.framework = std::make_shared<const FrameworkModel>(FrameworkModel::load(e.framework_file));
  e.intra_op_threads = threads ? static_cast<int>(threads->as_integer(1, 4096)) : 1;
  if (!e.framework->measured_at(e.intra_op_threads)) {
    std::string measured;
    for (int n : e.framework->thread_counts())
      measured.append(measured.empty() ? "" : ", ").append(std::to_string(n));
    (threads ? *threads : *file)
        .fail(e.framework_file + " was not measured at " + std::to_string(e.intra_op_threads) +
              " intra-op thread(s) for every op kind (measured: " + (measured.empty() ? "none" : measured) +
              ")");
  }
}

void load_version_1(const JsonNode& root, Calibration& c) {
  root.expect_only({"format", "version", "source", "devices", "notes", "fit"});
  for (const auto& [key, node] : root.at("devices").members()) {
    node.expect_only({"efficiency", "memory_efficiency", "memory_time_factor", "launch_overhead",
                      "memory_tiers", "gemm_structure"});
    Calibration::Entry e;
    e.name = key;
    e.applies_to.devices = {key}; // version 1 keys were a device name or a device kind
    e.applies_to.kinds = {key};
    load_parameters(node, e);
    c.entries.push_back(std::move(e));
  }
}

// The errors `validate` measured for the entry, which `run` names.
void load_held_out_figures(const JsonNode& node, Calibration::Entry& e) {
  if (auto h = node.find("held_out_mape_percent")) e.held_out_mape_percent = h->as_number();
  if (auto h = node.find("held_out_mape_percent_by_model"))
    for (const auto& [model, value] : h->members())
      e.held_out_mape_percent_by_model[model] = value.as_number();
  if (auto h = node.find("memory_held_out_mape_percent"))
    for (const auto& [kind, value] : h->members()) {
      value.expect_op_kind_key(kind, false);
      e.memory_held_out_mape_percent[kind] = value.as_number();
    }
  if (auto h = node.find("wave_held_out_mape_percent")) e.wave_held_out_mape_percent = h->as_number();
  if (auto h = node.find("wave_held_out_mape_percent_by_model"))
    for (const auto& [model, value] : h->members())
      e.wave_held_out_mape_percent_by_model[model] = value.as_number();
}

void load_version_2(const JsonNode& root, Calibration& c) {
  root.expect_only({"format", "version", "source", "entries", "notes", "fit"});
  for (const auto& node : root.at("entries").items()) {
    node.expect_only({"name",
                      "applies_to",
                      "measured",
                      "held_out_mape_percent",
                      "held_out_mape_percent_by_model",
                      "wave_held_out_mape_percent",
                      "wave_held_out_mape_percent_by_model",
                      "memory_held_out_mape_percent",
                      "efficiency",
                      "memory_efficiency",
                      "memory_time_factor",
                      "by_memory_type",
                      "launch_overhead",
                      "issue_overhead",
                      "memory_tiers",
                      "gemm_structure",
                      "wave_model",
                      "learned_model",
                      "framework_model",
                      "intra_op_threads",
                      "notes"});
    Calibration::Entry e;
    e.name = node.at("name").as_string();
    for (const auto& other : c.entries)
      if (other.name == e.name) node.at("name").fail("entry '" + e.name + "' is listed twice");
    const JsonNode to = node.at("applies_to");
    to.expect_only({"devices", "kinds", "models", "optional"});
    if (auto v = to.find("optional")) e.applies_to.optional = v->as_bool();
    if (auto v = to.find("devices")) e.applies_to.devices = v->as_string_list();
    if (auto v = to.find("kinds")) e.applies_to.kinds = v->as_string_list();
    if (auto v = to.find("models")) e.applies_to.models = v->as_string_list();
    if (e.applies_to.devices.empty() && e.applies_to.kinds.empty() && e.applies_to.models.empty())
      to.fail("names no device, kind or model");
    e.measured = node.at("measured").as_string();
    load_held_out_figures(node, e);
    if (auto w = node.find("wave_model")) e.wave = load_wave(*w);
    if (auto l = node.find("learned_model")) {
      const std::filesystem::path file = std::filesystem::path(root.file()).parent_path() / l->as_string();
      e.learned_file = file.string();
      if (!path_exists(e.learned_file)) l->fail("no such file: " + e.learned_file);
      if (!learned_models_built())
        l->fail("this build has no XGBoost (install libxgboost-dev and re-run cmake), so it cannot use a "
                "learned cost model");
      e.learned = std::make_shared<const LearnedModel>(LearnedModel::load(e.learned_file));
    }
    load_framework_model(node, e);
    load_parameters(node, e);
    c.entries.push_back(std::move(e));
  }
}

std::string device_list(const Platform& p) {
  std::string known;
  for (const auto& d : p.devices) {
    known.append(known.empty() ? "" : ", ").append(d.name).append(" (").append(d.kind);
    if (!d.model.empty()) known.append(", ").append(d.model);
    known.append(")");
  }
  return known;
}

} // namespace

int Calibration::AppliesTo::specificity(const Device& d) const {
  if (listed(devices, d.name)) return 3;
  if (listed(models, d.model)) return 2;
  if (listed(kinds, d.kind)) return 1;
  return 0;
}

const Calibration::Entry::MemorySystem* Calibration::memory_system(const Entry& e, const Device& d) {
  const Entry::MemorySystem* best = nullptr;
  std::size_t longest = 0;
  for (const auto& [type, system] : e.by_memory_type)
    if (type.size() > longest && d.units.memory_type.rfind(type, 0) == 0) {
      best = &system;
      longest = type.size();
    }
  return best;
}

const Calibration::Entry* Calibration::find(const Device& d) const {
  const Entry* best = nullptr;
  int best_level = 0;
  for (const auto& e : entries)
    if (const int level = e.applies_to.specificity(d); level > best_level) {
      best = &e;
      best_level = level;
    }
  return best;
}

std::vector<std::string> Calibration::calibrated_devices(const Entry& e, const Platform& p) const {
  std::vector<std::string> names;
  for (const auto& d : p.devices)
    if (find(d) == &e) names.push_back(d.name);
  return names;
}

Calibration load_calibration(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  if (root.string_or("format", "heterosim-calibration") != "heterosim-calibration")
    root.at("format").fail("expected format \"heterosim-calibration\"");
  const long long version = root.at("version").as_integer(1, 1000);
  Calibration c;
  c.file = path;
  c.source = root.string_or("source", path);
  if (version == 1)
    load_version_1(root, c);
  else if (version == 2)
    load_version_2(root, c);
  else
    root.at("version").fail("unsupported version " + std::to_string(version) + " (this build reads 1 and 2)");
  return c;
}

std::vector<std::string> shipped_calibration_names() {
  return data_file_names(data_directory() + "/models", "calibration-");
}

std::string calibration_file(const std::string& name_or_path) {
  return find_data_file(
      name_or_path, data_directory() + "/models", "calibration-", "calibration",
      [](const std::vector<std::string>& names) { return " (shipped: " + name_list(names) + ")"; });
}

Calibration load_calibration(const std::string& name_or_path, const Platform& p) {
  const std::string path = calibration_file(name_or_path);
  Calibration c = load_calibration(path);
  if (c.entries.empty()) throw InputError(path, "entries", "the calibration has no entries");
  for (const auto& d : p.devices) {
    const Calibration::Entry* best = c.find(d);
    for (const auto& e : c.entries)
      if (best && &e != best && e.applies_to.specificity(d) == best->applies_to.specificity(d))
        throw InputError(path, "entry '" + e.name + "'",
                         "matches device '" + d.name + "' as closely as entry '" + best->name +
                             "' does; make one of them name the device");
  }
  bool any = false;
  for (const auto& e : c.entries) {
    const bool calibrates = !c.calibrated_devices(e, p).empty();
    any = any || calibrates;
    if (!calibrates && !e.applies_to.optional) {
      const bool matched = std::any_of(p.devices.begin(), p.devices.end(),
                                       [&](const Device& d) { return e.applies_to.specificity(d) > 0; });
      throw InputError(path, "entry '" + e.name + "'",
                       std::string(matched ? "every device it matches is matched more closely by another "
                                             "entry, so it calibrates nothing"
                                           : "matches no device, kind or model") +
                           " on platform '" + p.name + "' (devices: " + device_list(p) + ")");
    }
  }
  if (!any)
    throw InputError(path, "entries",
                     "no entry calibrates a device of platform '" + p.name + "' (devices: " + device_list(p) +
                         ")");
  return c;
}

} // namespace hs
