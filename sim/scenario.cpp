#include "sim/scenario.hpp"

#include "sim/json_input.hpp"
#include "sim/random.hpp"

namespace hs {

std::vector<double> Scenario::op_time_factors(int ops) const {
  std::vector<double> f(static_cast<std::size_t>(ops), 1.0);
  if (noise_cv <= 0) return f;
  Rng rng(noise_seed);
  for (auto& x : f)
    x = rng.lognormal_unit_mean(noise_cv);
  return f;
}

namespace {

ResourceProfile parse_profile(const JsonNode& n, const char* name_key, int index) {
  n.expect_only({name_key, "profile", "notes"});
  ResourceProfile r;
  r.index = index;
  double last = -1;
  for (const auto& step : n.at("profile").items()) {
    step.expect_only({"at", "availability"});
    AvailabilityStep s;
    s.at = step.at("at").as_quantity(units::Quantity::Time);
    s.availability = step.at("availability").as_number();
    if (s.at <= last) step.at("at").fail("steps must be in increasing time order");
    if (s.availability <= 0 || s.availability > 1)
      step.at("availability").fail("availability must be in (0, 1] (a fraction of the nominal speed)");
    last = s.at;
    r.steps.push_back(s);
  }
  if (r.steps.empty()) n.at("profile").fail("needs at least one step");
  return r;
}

Scenario parse_scenario_json(const Json& j, const std::string& file, const Platform& p) {
  const JsonNode root(j, file, "");
  root.expect_only({"format", "version", "description", "devices", "links", "noise", "notes"});
  root.expect_format("heterosim-scenario", false);
  Scenario s;
  s.file = file;
  if (auto devices = root.find("devices"))
    for (const auto& d : devices->items()) {
      const auto name = d.at("device").as_string();
      const auto id = p.find_device(name);
      if (!id) d.at("device").fail("no device '" + name + "' in platform " + p.name);
      s.devices.push_back(parse_profile(d, "device", *id));
    }
  if (auto links = root.find("links"))
    for (const auto& l : links->items()) {
      const auto name = l.at("link").as_string();
      const auto id = p.find_link(name);
      if (!id) l.at("link").fail("no link '" + name + "' in platform " + p.name);
      s.links.push_back(parse_profile(l, "link", *id));
    }
  if (auto noise = root.find("noise")) {
    noise->expect_only({"cv", "seed", "notes"});
    s.noise_cv = noise->at("cv").as_number();
    if (s.noise_cv < 0 || s.noise_cv > 10)
      noise->at("cv").fail("coefficient of variation must be in [0, 10]");
    if (auto seed = noise->find("seed"))
      s.noise_seed = static_cast<std::uint64_t>(seed->as_integer(0, 1LL << 62));
  }
  return s;
}

} // namespace

Scenario parse_scenario(const std::string& json_text, const std::string& file_label, const Platform& p) {
  return parse_scenario_json(parse_json_text(json_text, file_label), file_label, p);
}

Scenario load_scenario(const std::string& path, const Platform& p) {
  return parse_scenario_json(read_json_file(path), path, p);
}

} // namespace hs
