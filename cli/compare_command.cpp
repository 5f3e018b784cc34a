// `heterosim compare`: every listed policy (all by default) on the same platform, workload, seed and
// scenario, one row each: latency, energy, bytes moved and peak memory per device, with latency, energy and
// the largest peak relative to a baseline policy (--baseline; by default fastest-device, the whole graph on
// the single best device).
#include "cli/commands.hpp"
#include "cli/compare_table.hpp"
#include "policies/policy_config.hpp"
#include "policies/policy_runner.hpp"
#include "policies/run_inputs.hpp"
#include "sim/json_input.hpp"
#include "sim/report.hpp"
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

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The policies to run: the listed ones (all by default, less the run-time ones an in-process engine cannot
// run), the baseline first when it is not listed, so every ratio has its denominator.
std::vector<std::string> chosen_policies(const CompareOptions& o, std::string& skipped) {
  std::vector<std::string> names = o.policies.empty() ? compared_policy_names() : split_names(o.policies);
  if (o.policies.empty() && o.engine != "simgrid")
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) {
                                 const bool dynamic = !policy_by_name(n).plans_ahead();
                                 if (dynamic) skipped += (skipped.empty() ? "" : ", ") + n;
                                 return dynamic;
                               }),
                names.end());
  for (const auto& n : names)
    require_known_policy(n);
  require_known_policy(o.baseline);
  if (std::find(names.begin(), names.end(), o.baseline) == names.end())
    names.insert(names.begin(), o.baseline);
  return names;
}

// One row per policy; a policy that fails on this input gets its error instead of figures.
std::vector<CompareRow> collect_rows(const std::vector<std::string>& names, const PolicyContext& ctx,
                                     const Scenario& scenario, const CompareOptions& o) {
  const CostModel& cost = ctx.cost;
  std::vector<CompareRow> rows;
  for (const auto& name : names) {
    CompareRow row;
    row.policy = name;
    row.kind = policy_by_name(name).mode();
    try {
      PolicyOutcome out = execute_policy(name, ctx, scenario, o.engine);
      const Report r = make_report({cost.platform().name, cost.graph().name, name, o.seed}, out.plan, cost,
                                   std::move(out.execution));
      row.latency = r.execution.makespan;
      row.energy = r.total_energy();
      for (const auto& t : r.execution.transfers)
        row.bytes += t.bytes;
      row.peak = r.memory.peak;
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

int compare(const CompareOptions& o) {
  const RunInputs inputs(
      {o.platform, o.workload, o.calibration, o.scenario, o.policy_config, o.seed, nullptr});
  const Platform& platform = inputs.platform();
  const Graph& graph = inputs.graph();
  const Scenario& scenario = inputs.scenario();
  std::string skipped; // run-time policies left out by default on the in-process engines
  const std::vector<std::string> names = chosen_policies(o, skipped);
  if (!o.csv.empty() && !o.force && path_exists(o.csv))
    throw InputError(o.csv, "", "already exists; pass --force to overwrite");
  const PolicyContext ctx = inputs.context();
  const std::vector<CompareRow> rows = collect_rows(names, ctx, scenario, o);
  const CompareRow& base =
      *std::find_if(rows.begin(), rows.end(), [&](const CompareRow& r) { return r.policy == o.baseline; });

  std::cout << "platform " << platform.name << ", workload " << graph.name << " (" << graph.op_count()
            << " ops), engine " << o.engine << ", seed " << o.seed
            << (scenario.empty() ? "" : ", scenario " + scenario.file) << "\n";
  std::cout << "ratios are relative to " << o.baseline << "; peak memory per device (* = over capacity)\n";
  if (!skipped.empty()) std::cout << "run-time policies need --engine simgrid; left out: " << skipped << "\n";
  std::cout << "\n" << compare_text(rows, base, platform);
  if (!o.csv.empty()) {
    write_file_atomically(o.csv, compare_csv(rows, base, platform), o.force);
    std::cout << "\nwrote " << o.csv << "\n";
  }
  const auto failures =
      std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) { return !r.error.empty(); });
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
  cmd->add_option("--calibration", o->calibration, kCalibrationHelp);
  cmd->add_option("--scenario", o->scenario,
                  "What-if file: background load, degraded links, op-time noise (simgrid and evaluator)");
  cmd->add_option("--policy-config", o->policy_config,
                  "JSON file of policy parameters, keyed by policy name");
  cmd->add_option("--csv", o->csv, "Also write the table as CSV to this file");
  cmd->add_flag("--force", o->force, "Overwrite an existing --csv file");
  return [o] { return compare(*o); };
}

HS_REGISTER_COMMAND(compare, {"compare", compare_command})

} // namespace
} // namespace hs::cli
