// `heterosim compare`: every listed policy (all by default) on the same platform, workload, seed and
// scenario, one row each: latency, energy, bytes moved and peak memory per device, with latency, energy and
// the largest peak relative to a baseline policy (--baseline; by default fastest-device, the whole graph on
// the single best device).
#include "cli/commands.hpp"
#include "cli/policy_runner.hpp"
#include "policies/policy_config.hpp"
#include "sim/csv.hpp"
#include "sim/json_input.hpp"
#include "sim/report.hpp"
#include "sim/units.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>

namespace hs::cli {
namespace {

struct CompareOptions {
  std::string platform;
  std::string workload;
  std::string policies;
  std::string engine = "simgrid";
  std::string calibration;
  std::string scenario;
  std::string policy_config;
  std::string csv;
  std::string baseline = "fastest-device";
  std::uint64_t seed = 0;
  bool force = false;
};

struct Row {
  std::string policy;
  std::string kind;
  std::string error;
  double latency = 0, energy = 0, bytes = 0;
  std::vector<double> peak;
  bool over_capacity = false;
};

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string ratio(double v, double base) {
  if (!(base > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v / base);
  return buf;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

int compare(const CompareOptions& o) {
  const Platform platform = load_platform(o.platform);
  const Graph graph = load_workload(o.workload, o.seed);
  const CostModel cost(graph, platform,
                       o.calibration.empty() ? Calibration{} : load_calibration(o.calibration, platform));
  std::vector<std::string> names = o.policies.empty() ? all_policy_names() : split_names(o.policies);
  std::string
      skipped; // run-time policies left out by default on the in-process engines, which cannot run them
  if (o.policies.empty() && o.engine != "simgrid")
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) {
                                 const bool dynamic = DynamicPolicyRegistry::instance().find(n) != nullptr;
                                 if (dynamic) skipped += (skipped.empty() ? "" : ", ") + n;
                                 return dynamic;
                               }),
                names.end());
  for (const auto& n : names)
    require_known_policy(n);
  require_known_policy(o.baseline);
  // The baseline first, so every ratio has its denominator even when it is not listed.
  if (std::find(names.begin(), names.end(), o.baseline) == names.end())
    names.insert(names.begin(), o.baseline);
  if (!o.csv.empty() && !o.force && path_exists(o.csv))
    throw InputError(o.csv, "", "already exists; pass --force to overwrite");
  const Scenario scenario = o.scenario.empty() ? Scenario{} : load_scenario(o.scenario, platform);
  const PolicyContext ctx{cost, o.seed,
                          o.policy_config.empty() ? nullptr : load_policy_config(o.policy_config)};

  std::vector<Row> rows;
  for (const auto& name : names) {
    Row row;
    row.policy = name;
    row.kind = DynamicPolicyRegistry::instance().find(name) ? "run-time" : "static";
    try {
      PolicyOutcome out = execute_policy(name, ctx, scenario, o.engine);
      const Report r =
          make_report({platform.name, graph.name, name, o.seed}, out.plan, cost, std::move(out.execution));
      row.latency = r.execution.makespan;
      row.energy = r.total_energy();
      for (const auto& t : r.execution.transfers)
        row.bytes += t.bytes;
      row.peak = r.memory.peak;
      row.over_capacity = !capacity_violations(r.memory, platform).empty();
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    rows.push_back(std::move(row));
  }
  const Row& base =
      *std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.policy == o.baseline; });
  const double base_peak = base.peak.empty() ? 0.0 : *std::max_element(base.peak.begin(), base.peak.end());

  std::cout << "platform " << platform.name << ", workload " << graph.name << " (" << graph.op_count()
            << " ops), engine " << o.engine << ", seed " << o.seed
            << (scenario.empty() ? "" : ", scenario " + scenario.file) << "\n";
  std::cout << "ratios are relative to " << o.baseline << "; peak memory per device (* = over capacity)\n";
  if (!skipped.empty()) std::cout << "run-time policies need --engine simgrid; left out: " << skipped << "\n";
  std::cout << "\n";
  std::vector<std::string> header = {"policy", "kind", "latency",     "x",
                                     "energy", "x",    "bytes moved", "max peak x"};
  for (const auto& d : platform.devices)
    header.push_back("peak " + d.name);
  std::vector<std::vector<std::string>> table = {header};
  std::string csv = "policy,kind,latency_s,latency_ratio,energy_j,energy_ratio,bytes_moved,max_peak_ratio";
  for (const auto& d : platform.devices)
    csv += "," + csv_field("peak_bytes_" + d.name);
  csv += ",error\n";
  int failures = 0;
  for (const auto& row : rows) {
    if (!row.error.empty()) {
      ++failures;
      table.push_back({row.policy, row.kind, "failed: " + row.error});
      csv += row.policy + "," + row.kind + ",,,,,,";
      for (std::size_t d = 0; d < platform.devices.size(); ++d)
        csv += ",";
      csv += "," + csv_field(row.error) + "\n";
      continue;
    }
    const double max_peak = *std::max_element(row.peak.begin(), row.peak.end());
    std::vector<std::string> cells = {row.policy,
                                      row.kind,
                                      units::format_time(row.latency),
                                      ratio(row.latency, base.latency),
                                      units::format_energy(row.energy),
                                      ratio(row.energy, base.energy),
                                      units::format_bytes(row.bytes),
                                      ratio(max_peak, base_peak)};
    for (std::size_t d = 0; d < row.peak.size(); ++d)
      cells.push_back(units::format_bytes(row.peak[d]) +
                      (row.peak[d] > platform.devices[d].memory_capacity ? "*" : ""));
    table.push_back(cells);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s,%s,%.9g,%s,%.9g,%s,%.17g,%s", row.policy.c_str(), row.kind.c_str(),
                  row.latency, ratio(row.latency, base.latency).c_str(), row.energy,
                  ratio(row.energy, base.energy).c_str(), row.bytes, ratio(max_peak, base_peak).c_str());
    csv += buf;
    for (double pk : row.peak)
      csv += "," + std::to_string(static_cast<long long>(pk));
    csv += ",\n";
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& r : table)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c)
      if (r.size() == header.size() || c < 2) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : table) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c)
      line += (c + 1 < r.size() ? pad(r[c], width[c] + 2) : r[c]);
    std::cout << line << "\n";
  }
  if (!o.csv.empty()) {
    write_file_atomically(o.csv, csv, o.force);
    std::cout << "\nwrote " << o.csv << "\n";
  }
  if (failures > 0)
    std::cerr << "heterosim: " << failures << " of " << rows.size() << " policies failed on this input\n";
  return failures > 0 ? 4 : 0;
}

Action compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd =
      app.add_subcommand("compare", "Run several policies on the same inputs and print one comparison table");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->required();
  cmd->add_option("--workload", o->workload, "Graph file or builder spec such as random:ops=200")->required();
  cmd->add_option("--policies", o->policies, "Comma-separated policy names (default: every policy)");
  cmd->add_option("--baseline", o->baseline,
                  "The policy every ratio is relative to (run even when not listed)")
      ->capture_default_str();
  cmd->add_option(
         "--engine", o->engine,
         "simgrid (needed by run-time policies), evaluator (contention-aware) or analytic (contention-free)")
      ->check(CLI::IsMember({"simgrid", "evaluator", "analytic"}))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed for random workloads and randomised policies")
      ->capture_default_str();
  cmd->add_option("--calibration", o->calibration, "Calibration file overriding the platform's efficiencies");
  cmd->add_option("--scenario", o->scenario,
                  "What-if file: background load, degraded links, op-time noise (simgrid and evaluator)");
  cmd->add_option("--policy-config", o->policy_config,
                  "JSON file of policy parameters, keyed by policy name");
  cmd->add_option("--csv", o->csv, "Also write the table as CSV to this file");
  cmd->add_flag("--force", o->force, "Overwrite an existing --csv file");
  return [o] { return compare(*o); };
}

const bool registered = register_command({"compare", compare_command});

} // namespace
} // namespace hs::cli
