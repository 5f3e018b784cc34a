#include "cli/sweep_metrics.hpp"

#include "sim/nearest_name.hpp"

#include <algorithm>
#include <functional>

namespace hs::cli {
namespace {

struct Metric {
  std::string name;
  std::string meaning;
  std::function<std::optional<double>(const Json&)> read;
};

std::optional<double> number_at(const Json& report, const Json::json_pointer& pointer) {
  if (!report.contains(pointer)) return std::nullopt;
  const Json& v = report.at(pointer);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

// What `engine` said about the run's plan: the run itself, or one of its cross-checks.
std::optional<double> engine_makespan(const Json& report, const std::string& engine) {
  if (report.value("engine", "") == engine) return number_at(report, Json::json_pointer("/makespan_s"));
  if (!report.contains("cross_check")) return std::nullopt;
  for (const auto& c : report["cross_check"])
    if (c.value("engine", "") == engine) return c.value("makespan_s", 0.0);
  return std::nullopt;
}

// Sum (or maximum) of one field over the members of an object of objects ("devices", "links").
std::optional<double> over_members(const Json& report, const char* group, const char* field, bool maximum) {
  if (!report.contains(group) || !report[group].is_object()) return std::nullopt;
  double total = 0.0;
  for (const auto& member : report[group])
    if (member.contains(field) && member[field].is_number())
      total = maximum ? std::max(total, member[field].get<double>()) : total + member[field].get<double>();
  return total;
}

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> list = {
      {"latency_s", "makespan in the run's engine (the SimGrid replay unless the sweep sets engine)",
       [](const Json& r) { return number_at(r, Json::json_pointer("/makespan_s")); }},
      {"evaluator_latency_s", "makespan the contention-aware evaluator predicts for the same plan",
       [](const Json& r) { return engine_makespan(r, "evaluator"); }},
      {"lower_bound_s", "contention-free lower bound on the makespan (analytic engine)",
       [](const Json& r) { return engine_makespan(r, "analytic"); }},
      {"energy_j", "energy of devices and links over the run",
       [](const Json& r) { return number_at(r, Json::json_pointer("/energy/total_j")); }},
      {"peak_memory_bytes", "largest peak memory of any device",
       [](const Json& r) { return over_members(r, "devices", "peak_memory_bytes", true); }},
      {"bytes_moved", "bytes of all transfers (each tensor copy once, whatever links it crosses)",
       [](const Json& r) { return number_at(r, Json::json_pointer("/transfers/bytes")); }},
      {"link_bytes", "bytes over all links (a copy crossing two links counts twice)",
       [](const Json& r) { return over_members(r, "links", "bytes", false); }},
      {"transfers", "number of transfers",
       [](const Json& r) { return number_at(r, Json::json_pointer("/transfers/count")); }},
  };
  return list;
}

} // namespace

const std::vector<std::string>& sweep_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& m : metrics())
      n.push_back(m.name);
    return n;
  }();
  return names;
}

std::string sweep_metric_help() {
  std::string s;
  for (const auto& m : metrics())
    s += "  " + m.name + std::string(std::max<std::size_t>(1, 22 - m.name.size()), ' ') + m.meaning + "\n";
  return s + "  /a/json/pointer        any number in report.json\n";
}

void check_sweep_metric(const std::string& metric, const JsonNode& where) {
  if (!metric.empty() && metric.front() == '/') {
    try {
      Json::json_pointer p(metric);
    } catch (const Json::exception&) {
      where.fail("'" + metric + "' is not a valid JSON pointer");
    }
    return;
  }
  const auto& names = sweep_metric_names();
  if (std::find(names.begin(), names.end(), metric) == names.end())
    where.fail("unknown metric '" + metric + "'" + did_you_mean(metric, names) + "; known: " +
               name_list(names) + ", or a JSON pointer into report.json such as /devices/gpu0/utilization");
}

std::optional<double> sweep_metric(const Json& report, const std::string& metric) {
  if (!metric.empty() && metric.front() == '/') return number_at(report, Json::json_pointer(metric));
  for (const auto& m : metrics())
    if (m.name == metric) return m.read(report);
  return std::nullopt;
}

} // namespace hs::cli
