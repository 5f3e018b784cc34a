#include "sim/platform.hpp"

#include "sim/calibration.hpp"
#include "sim/cluster_platform.hpp"
#include "sim/data_directory.hpp"
#include "sim/data_files.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/key_values.hpp"
#include "sim/nearest_name.hpp"
#include "sim/op_kinds.hpp"
#include "sim/platform_routes.hpp"
#include "sim/simgrid_xml_platform.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>

namespace hs {

using units::Quantity;

bool Device::supports_op(const std::string& op_kind) const {
  return supported_ops.empty() || is_synchronisation_kind(op_kind) ||
         std::find(supported_ops.begin(), supported_ops.end(), op_kind) != supported_ops.end();
}

double ComputeUnits::sustained_share() const {
  return sustained_clock_mhz > 0 && boost_clock_mhz > 0 ? sustained_clock_mhz / boost_clock_mhz : 1.0;
}

double Device::efficiency_for(const std::string& op_kind) const {
  if (auto it = compute_efficiency.find(op_kind); it != compute_efficiency.end()) return it->second;
  if (auto it = compute_efficiency.find("default"); it != compute_efficiency.end()) return it->second;
  return 1.0;
}

std::optional<DeviceId> Platform::find_device(const std::string& n) const {
  // An index, because a graph pinned over a thousand devices names one per op; it is only a hint (the
  // devices are public and may have changed since), so a hit is checked and a miss is searched for.
  if (device_index_->size() != devices.size()) {
    device_index_->clear();
    for (std::size_t i = 0; i < devices.size(); ++i)
      device_index_->emplace(devices[i].name, static_cast<DeviceId>(i));
  }
  if (auto it = device_index_->find(n); it != device_index_->end() &&
                                        static_cast<std::size_t>(it->second) < devices.size() &&
                                        devices[static_cast<std::size_t>(it->second)].name == n)
    return it->second;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].name == n) return static_cast<DeviceId>(i);
  return std::nullopt;
}

std::optional<LinkId> Platform::find_link(const std::string& n) const {
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].name == n) return static_cast<LinkId>(i);
  return std::nullopt;
}

bool Platform::has_topology() const {
  return std::any_of(links.begin(), links.end(), [](const Link& l) { return !l.ends.empty(); });
}

const Route* Platform::route(DeviceId from, DeviceId to) const {
  if (from == to) return nullptr;
  const std::uint64_t key = pair_key(from, to);
  if (auto w = routes_->written.find(key); w != routes_->written.end()) return &w->second;
  if (!routes_->source || routes_->unreachable.count(key)) return nullptr;
  auto c = routes_->computed.find(key);
  if (c == routes_->computed.end()) {
    std::optional<Route> r = routes_->source->route(from, to);
    if (r) r = with_totals(std::move(*r));
    c = routes_->computed.emplace(key, std::move(r)).first;
  }
  return c->second ? &*c->second : nullptr;
}

Route Platform::with_totals(Route r) const {
  r.latency = 0;
  r.bandwidth = std::numeric_limits<double>::infinity();
  for (const auto& hop : r.hops) {
    r.latency += links.at(static_cast<std::size_t>(hop.link)).latency;
    r.bandwidth = std::min(r.bandwidth, links.at(static_cast<std::size_t>(hop.link)).bandwidth);
  }
  return r;
}

void Platform::set_route(DeviceId from, DeviceId to, Route r) {
  if (routes_.use_count() > 1) routes_ = std::make_shared<Routes>(*routes_); // a copy's change is its own
  routes_->written[pair_key(from, to)] = with_totals(std::move(r));
}

void Platform::compute_other_routes(std::shared_ptr<const RouteSource> source,
                                    std::vector<std::pair<DeviceId, DeviceId>> unreachable) {
  if (routes_.use_count() > 1) routes_ = std::make_shared<Routes>(*routes_);
  routes_->source = std::move(source);
  routes_->computed.clear();
  for (const auto& [a, b] : unreachable)
    routes_->unreachable[pair_key(a, b)] = true;
}

int link_direction(const Platform& p, const RouteHop& hop) {
  const Link& l = p.links[static_cast<std::size_t>(hop.link)];
  return 2 * hop.link + (l.sharing == Sharing::SplitDuplex && !hop.forward ? 1 : 0);
}

void Platform::validate() const {
  if (devices.empty()) throw InputError(file, "devices", "a platform needs at least one device");
  std::set<std::string> names;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    const std::string place = "devices[" + std::to_string(i) + "]";
    if (!names.insert(d.name).second) throw InputError(file, place, "duplicate device name '" + d.name + "'");
    if (d.pstates.empty()) throw InputError(file, place, "device '" + d.name + "' has no power state");
    if (d.peak_flops.empty() && d.kind != "textbook")
      throw InputError(file, place, "device '" + d.name + "' declares no peak throughput");
    for (const auto& [prec, f] : d.peak_flops)
      if (f <= 0) throw InputError(file, place + ".peak." + prec, "peak throughput must be positive");
    if (d.memory_bandwidth <= 0) throw InputError(file, place + ".memory.bandwidth", "must be positive");
    if (d.memory_capacity <= 0) throw InputError(file, place + ".memory.capacity", "must be positive");
    for (const auto& p : d.pstates)
      if (p.speed <= 0 || p.busy_watts < p.idle_watts)
        throw InputError(file, place + ".pstates",
                         "each p-state needs a positive speed and busy power at least its idle power");
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].bandwidth <= 0)
      throw InputError(file, "links[" + std::to_string(i) + "].bandwidth", "must be positive");
    if (!names.insert(links[i].name).second)
      throw InputError(file, "links[" + std::to_string(i) + "]",
                       "name '" + links[i].name + "' is used twice");
  }
}

namespace {

PState parse_pstate(const JsonNode& n, double speed_default) {
  n.expect_only({"speed", "idle", "busy"});
  PState p;
  p.speed = n.find("speed") ? n.at("speed").as_number() : speed_default;
  p.idle_watts = n.at("idle").as_quantity(Quantity::Power);
  p.busy_watts = n.at("busy").as_quantity(Quantity::Power);
  // Speeds are ratios to the nominal state's: a thousandth to a hundred times covers every real DVFS range.
  if (!(p.speed >= 1e-3 && p.speed <= 100))
    n.at("speed").fail("speed is relative to the nominal (first) p-state and must be in [0.001, 100]");
  if (p.busy_watts < p.idle_watts) n.at("busy").fail("busy power must be at least the idle power");
  return p;
}

ComputeUnits parse_compute_units(const JsonNode& n) {
  n.expect_only({"count", "boost_clock_mhz", "sustained_clock_mhz", "power_limit", "architecture",
                 "memory_type", "driver_version", "runtime_version", "dnn_version", "source"});
  ComputeUnits u;
  u.count = static_cast<int>(n.at("count").as_integer(1, 1 << 20));
  if (auto c = n.find("boost_clock_mhz")) u.boost_clock_mhz = c->as_number();
  if (auto c = n.find("sustained_clock_mhz")) u.sustained_clock_mhz = c->as_number();
  if (!(u.boost_clock_mhz >= 0)) n.at("boost_clock_mhz").fail("must not be negative");
  if (!(u.sustained_clock_mhz >= 0)) n.at("sustained_clock_mhz").fail("must not be negative");
  if (u.sustained_clock_mhz > 0 && !(u.boost_clock_mhz > 0))
    n.at("sustained_clock_mhz").fail("needs boost_clock_mhz, the clock the peaks are quoted at");
  if (u.sustained_clock_mhz > u.boost_clock_mhz)
    n.at("sustained_clock_mhz").fail("must not exceed boost_clock_mhz");
  u.power_limit_watts = n.quantity_or("power_limit", Quantity::Power, 0.0);
  u.architecture = n.string_or("architecture", "");
  u.memory_type = n.string_or("memory_type", "");
  for (auto [key, field] :
       {std::pair{"driver_version", &u.driver_version}, std::pair{"runtime_version", &u.runtime_version},
        std::pair{"dnn_version", &u.dnn_version}})
    if (auto v = n.find(key)) {
      *field = v->as_number();
      if (!(*field > 0)) v->fail("must be a positive version number (e.g. 10.1)");
    }
  u.source = n.at("source").as_string();
  return u;
}

Device parse_device(const JsonNode& n) {
  n.expect_only({"name", "kind", "model", "compute_units", "peak", "memory", "launch_overhead",
                 "issue_overhead", "efficiency", "memory_efficiency", "supported_ops", "power", "pstates",
                 "streams", "copy_engines", "source", "notes"});
  Device d;
  d.name = n.at("name").as_string();
  d.kind = n.at("kind").as_string();
  if (d.name.empty()) n.at("name").fail("device name must not be empty");
  d.model = n.string_or("model", "");
  if (auto u = n.find("compute_units")) d.units = parse_compute_units(*u);
  if (auto peak = n.find("peak"))
    for (const auto& [prec, v] : peak->members())
      d.peak_flops[prec] = v.as_quantity(Quantity::Flops);
  const auto mem = n.at("memory");
  mem.expect_only({"bandwidth", "capacity"});
  d.memory_bandwidth = mem.at("bandwidth").as_quantity(Quantity::Bandwidth);
  d.memory_capacity = mem.at("capacity").as_quantity(Quantity::Bytes);
  d.launch_overhead = n.quantity_or("launch_overhead", Quantity::Time, 0.0);
  d.issue_overhead = n.quantity_or("issue_overhead", Quantity::Time, 0.0);
  if (auto eff = n.find("efficiency"))
    for (const auto& [kind, v] : eff->members()) {
      v.expect_op_kind_key(kind, true);
      d.compute_efficiency[kind] = v.as_fraction();
    }
  if (auto me = n.find("memory_efficiency")) d.memory_efficiency = me->as_fraction();
  if (auto ops = n.find("supported_ops"))
    for (const auto& op : ops->items())
      d.supported_ops.push_back(op.as_op_kind());
  if (auto ps = n.find("pstates")) {
    for (const auto& p : ps->items())
      d.pstates.push_back(parse_pstate(p, 1.0));
    if (d.pstates.empty()) ps->fail("needs at least one p-state");
    // Speeds are relative to the first state, so a first speed other than 1 would be silently ignored.
    if (d.pstates.front().speed != 1.0)
      ps->items().front().at("speed").fail("the first p-state is the nominal one: its speed must be 1 (the "
                                           "others are relative to it)");
  } else {
    d.pstates.push_back(parse_pstate(n.at("power"), 1.0));
  }
  if (auto s = n.find("streams")) d.streams = static_cast<int>(s->as_integer(1, 1024));
  if (auto c = n.find("copy_engines")) d.copy_engines = static_cast<int>(c->as_integer(1, 1024));
  d.source = n.string_or("source", "");
  return d;
}

Link parse_link(const JsonNode& n) {
  n.expect_only({"name", "ends", "bandwidth", "latency", "sharing", "power", "source", "notes"});
  Link l;
  l.name = n.at("name").as_string();
  l.bandwidth = n.at("bandwidth").as_quantity(Quantity::Bandwidth);
  if (l.bandwidth <= 0) n.at("bandwidth").fail("bandwidth must be positive");
  l.latency = n.quantity_or("latency", Quantity::Time, 0.0);
  const std::string sharing = n.string_or("sharing", "split-duplex");
  if (sharing == "split-duplex") {
    l.sharing = Sharing::SplitDuplex;
  } else if (sharing == "shared") {
    l.sharing = Sharing::Shared;
  } else {
    n.at("sharing").fail("sharing must be \"split-duplex\" or \"shared\" (got \"" + sharing + "\")");
  }
  if (auto p = n.find("power")) {
    p->expect_only({"idle", "busy"});
    l.idle_watts = p->at("idle").as_quantity(Quantity::Power);
    l.busy_watts = p->at("busy").as_quantity(Quantity::Power);
    if (l.busy_watts < l.idle_watts) p->at("busy").fail("busy power must be at least the idle power");
  }
  l.source = n.string_or("source", "");
  return l;
}

void read_calibration(Platform& p, const JsonNode& field) {
  try {
    p.calibration = std::make_shared<const Calibration>(
        load_calibration(platform_calibration_path(field.as_string(), p.file), p));
  } catch (const InputError& e) {
    field.fail(e.what());
  }
}

} // namespace

std::string platform_calibration_path(const std::string& written, const std::string& platform_file) {
  // The same test `load_calibration` makes: a name with a directory or an extension is a file.
  if (!looks_like_a_path(written) || std::filesystem::path(written).is_absolute()) return written;
  return (std::filesystem::path(platform_file).parent_path() / written).string();
}

Platform parse_platform_json(const Json& j, const std::string& file) {
  const JsonNode root(j, file, "");
  root.expect_only({"format", "version", "name", "description", "sources", "devices", "nodes", "links",
                    "transit_devices", "routes", "unreachable", "calibration", "notes"});
  root.expect_format("heterosim-platform", false);
  Platform p;
  p.file = file;
  p.name = root.at("name").as_string();
  if (p.name.empty()) root.at("name").fail("a platform needs a name");
  p.description = root.string_or("description", "");
  for (const auto& d : root.at("devices").items())
    p.devices.push_back(parse_device(d));
  if (auto links = root.find("links"))
    for (const auto& l : links->items())
      p.links.push_back(parse_link(l));
  p.validate();
  read_topology(p, root);
  read_routes(p, root);
  if (const auto c = root.find("calibration")) read_calibration(p, *c);
  return p;
}

Platform parse_platform(const std::string& json_text, const std::string& file_label) {
  return parse_platform_json(parse_json_text(json_text, file_label), file_label);
}

std::string platforms_directory() {
  if (const char* env = std::getenv("HETEROSIM_PLATFORMS"); env && *env) return env;
  return data_directory() + "/platforms";
}

std::vector<std::string> preset_platform_names() {
  return data_file_names(platforms_directory(), "");
}

std::string platform_file(const std::string& name_or_path) {
  return find_data_file(
      name_or_path, platforms_directory(), "", "preset",
      [](const std::vector<std::string>&) { return std::string(" (see `heterosim platforms`)"); });
}

Platform load_platform(const std::string& name_or_path) {
  std::string name = name_or_path;
  std::map<std::string, std::string> parameters; // "dgx-a100-cluster:nodes=16"
  if (const auto colon = name.find(':'); colon != std::string::npos && !path_exists(name)) {
    parameters = parse_key_values(name, name.substr(colon + 1));
    name.resize(colon);
  }
  const std::string path = platform_file(name);
  if (is_simgrid_xml_path(path)) {
    if (!parameters.empty())
      throw InputError(name_or_path, parameters.begin()->first,
                       "a SimGrid platform file takes no parameters");
    return parse_platform_json(simgrid_xml_platform(path), path);
  }
  const Json j = read_json_file(path);
  if (j.is_object() && j.value("format", "") == "heterosim-cluster")
    return parse_platform_json(expand_cluster(j, path, parameters), path);
  if (!parameters.empty())
    throw InputError(name_or_path, parameters.begin()->first,
                     "only a cluster platform (format heterosim-cluster) takes parameters");
  return parse_platform_json(j, path);
}

} // namespace hs
