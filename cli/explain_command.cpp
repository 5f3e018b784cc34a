// `heterosim explain`: how a list scheduler decided, for teaching: the rank table in priority order, then
// every decision with each candidate device's earliest start and finish and the one chosen.
#include "cli/commands.hpp"
#include "policies/explain.hpp"
#include "policies/policy_config.hpp"
#include "policies/policy_runner.hpp"
#include "policies/run_inputs.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"
#include "workloads/workload_registry.hpp"

#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct ExplainOptions {
  std::string platform;
  std::string workload;
  std::string policy = "heft";
  std::string format = "text";
  std::string out; // stdout when empty
  std::string calibration;
  std::string policy_config;
  std::uint64_t seed = 0;
  bool force = false;
};

int explain(const ExplainOptions& o) {
  const RunInputs inputs({o.platform, o.workload, o.calibration, "", o.policy_config, o.seed, nullptr});
  const Platform& platform = inputs.platform();
  const Graph& graph = inputs.graph();
  const CostModel& cost = inputs.cost();
  require_known_policy(o.policy);
  if (!o.out.empty() && !o.force && path_exists(o.out))
    throw InputError(o.out, "", "already exists; pass --force to overwrite or choose another --out");
  const PolicyContext ctx = inputs.context();
  const auto explained = plan_with_explanation(o.policy, ctx);
  if (!explained) throw InputError("--policy", o.policy, nothing_to_explain(o.policy));
  const ExplainLabels labels{o.policy, platform.name, graph.name};
  const std::string text = o.format == "json"
                               ? explain_json(explained->explanation, cost, labels).dump(1) + "\n"
                               : explain_text(explained->explanation, cost, labels);
  if (o.out.empty())
    std::cout << text;
  else
    write_file_atomically(o.out, text, o.force);
  return 0;
}

Action explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand(
      "explain", "Show how a list scheduler (HEFT, PEFT, memory-aware, expert-grouping) decided: ranks, each "
                 "candidate's start and finish, "
                 "the choices");
  cmd->add_option("--platform", o->platform, "Platform file or preset name (see `heterosim platforms`)")
      ->required();
  cmd->add_option("--workload", o->workload,
                  "Graph file or builder spec such as random:ops=20 (see `heterosim workloads`)")
      ->required();
  cmd->add_option("--policy", o->policy, "One of " + name_list(explainable_policies()))
      ->capture_default_str();
  cmd->add_option("--format", o->format, "text: aligned tables for a terminal; json: for tools")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "File to write instead of standard output");
  cmd->add_flag("--force", o->force, "Overwrite --out if it exists");
  cmd->add_option("--seed", o->seed, "Seed for random workloads")->capture_default_str();
  cmd->add_option("--calibration", o->calibration, kCalibrationHelp);
  cmd->add_option("--policy-config", o->policy_config,
                  "JSON file of policy parameters, keyed by policy name (see docs/policies.md)");
  return [o] { return explain(*o); };
}

HS_REGISTER_COMMAND(explain, {"explain", explain_command})

} // namespace
} // namespace hs::cli
