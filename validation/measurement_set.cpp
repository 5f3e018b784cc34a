#include "validation/measurement_set.hpp"

#include "sim/json_input.hpp"

#include <algorithm>
#include <cmath>

namespace hs::validation {

std::string measurement_set_json(const MeasurementSet& m) {
  Json j;
  j["format"] = "heterosim-measurements";
  j["version"] = 1;
  j["device"] = m.device;
  j["device_kind"] = m.device_kind;
  j["environment"] = m.environment;
  j["peaks"] = m.peaks;
  j["points"] = Json::array();
  for (const auto& p : m.points) {
    Json q;
    q["kind"] = p.kind;
    q["label"] = p.label;
    q["shape"] = p.shape;
    q["flops"] = p.flops;
    q["bytes"] = p.bytes;
    q["repeats"] = p.repeats;
    q["co_running_threads"] = p.co_running;
    q["p50_s"] = p.p50;
    q["p95_s"] = p.p95;
    if (p.wall_p50 > 0) q["wall_p50_s"] = p.wall_p50;
    if (p.best > 0) q["min_s"] = p.best;
    j["points"].push_back(std::move(q));
  }
  return j.dump(1) + "\n";
}

double load_fastest_run(const JsonNode& n, const std::string& key, double p50) {
  const auto b = n.find(key);
  if (!b) return 0.0;
  const double best = b->as_number();
  if (!(best > 0) || best > p50) b->fail("the fastest run must be positive and at most P50");
  return best;
}

MeasurementSet load_measurement_set(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  root.expect_only({"format", "version", "device", "device_kind", "environment", "peaks", "points", "notes"});
  root.expect_format("heterosim-measurements", true);
  MeasurementSet m;
  m.device = root.at("device").as_string();
  m.device_kind = root.at("device_kind").as_string();
  if (auto env = root.find("environment"))
    for (const auto& [k, v] : env->members())
      m.environment[k] = v.as_string();
  if (auto peaks = root.find("peaks"))
    for (const auto& [k, v] : peaks->members()) {
      m.peaks[k] = v.as_number();
      if (!(m.peaks[k] > 0)) v.fail("a peak figure must be positive");
    }
  for (const auto& n : root.at("points").items()) {
    n.expect_only({"kind", "label", "shape", "flops", "bytes", "repeats", "co_running_threads", "p50_s",
                   "p95_s", "wall_p50_s", "min_s"});
    KernelPoint p;
    p.kind = n.at("kind").as_string();
    p.label = n.string_or("label", p.kind);
    if (auto s = n.find("shape"))
      for (const auto& [k, v] : s->members())
        p.shape[k] = v.as_number();
    p.flops = n.at("flops").as_number();
    p.bytes = n.at("bytes").as_number();
    if (p.flops < 0) n.at("flops").fail("must not be negative");
    if (p.bytes < 0) n.at("bytes").fail("must not be negative");
    p.repeats = static_cast<int>(n.at("repeats").as_integer(1, 1LL << 30));
    if (auto c = n.find("co_running_threads")) p.co_running = static_cast<int>(c->as_integer(1, 4096));
    p.p50 = n.at("p50_s").as_number();
    p.p95 = n.at("p95_s").as_number();
    if (!(p.p50 > 0)) n.at("p50_s").fail("a measured time must be positive");
    if (p.p95 < p.p50) n.at("p95_s").fail("P95 must be at least P50");
    if (auto w = n.find("wall_p50_s")) {
      p.wall_p50 = w->as_number();
      if (!(p.wall_p50 > 0)) w->fail("a measured time must be positive");
    }
    p.best = load_fastest_run(n, "min_s", p.p50);
    m.points.push_back(std::move(p));
  }
  if (m.points.empty()) root.at("points").fail("holds no measurement");
  return m;
}

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(values.size() - 1, lo + 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

} // namespace hs::validation
