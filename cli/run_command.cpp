// `heterosim run`: plan a workload on a platform with a policy, replay it, report.
#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/parallel_option.hpp"
#include "cli/platform_sets.hpp"
#include "cli/run_writers.hpp"
#include "policies/explain.hpp"
#include "policies/pareto/stored_plan.hpp"
#include "policies/policy_config.hpp"
#include "policies/policy_runner.hpp"
#include "policies/run_inputs.hpp"
#include "sim/json_input.hpp"
#include "sim/report.hpp"
#include "workloads/workload_registry.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace hs::cli {
namespace {

struct RunOptions {
  std::string platform;
  std::string workload;
  std::string policy = "heft";
  std::string engine = "simgrid";
  std::string out = "heterosim-out";
  std::string calibration;
  std::string scenario;
  std::string policy_config;
  std::string plan;              // a stored plan to replay instead of planning
  std::string parallel;          // --parallel: a training step spread over devices
  std::vector<std::string> sets; // --set: platform fields changed for this run
  std::optional<int> plan_id;
  std::uint64_t seed = 0;
  bool force = false;
  bool allow_over_capacity = false;
  bool quiet = false;
  bool report_only = false; // a sweep's point: report.json alone
  bool explain = false;
  bool timeline = false; // report.json's per-op timeline even past kTimelineOpsUpTo ops
};

// Plans (unless a stored plan is given) and executes; with --explain, records the list scheduler's
// decisions into `explained` from the same planning call, or says why there are none.
PolicyOutcome plan_and_execute(const RunOptions& o, const PolicyContext& ctx, const Scenario& scenario,
                               const std::optional<pareto::StoredPlan>& stored,
                               std::optional<Explanation>& explained) {
  if (stored) {
    if (o.explain) std::cerr << "heterosim: note: --explain: a stored plan carries no decisions to explain\n";
    return execute_plan(stored->plan, *stored->cost, scenario, o.engine);
  }
  if (!o.explain) return execute_policy(o.policy, ctx, scenario, o.engine);
  if (auto e = plan_with_explanation(o.policy, ctx)) {
    explained = std::move(e->explanation);
    return execute_plan(std::move(e->plan), ctx.cost, scenario, o.engine);
  }
  std::cerr << "heterosim: note: --explain: " << nothing_to_explain(o.policy)
            << "; no explain.json written\n";
  return execute_policy(o.policy, ctx, scenario, o.engine);
}

// A plan that does not fit is refused before anything is written, unless asked to keep it.
bool fits_or_kept(const Report& report, const Platform& platform, bool allow_over_capacity) {
  const auto violations = capacity_violations(report.memory, platform);
  for (const auto& v : violations)
    std::cerr << "heterosim: " << (allow_over_capacity ? "warning" : "error")
              << ": memory over capacity: " << v << "\n";
  if (violations.empty() || allow_over_capacity) return true;
  std::cerr << "heterosim: the plan does not fit, so no report was written; choose another policy or pass "
               "--allow-over-capacity to keep it anyway\n";
  return false;
}

// What the run writes (cli/run_writers.hpp), report.json first; refused before any time is spent on the
// replay when one exists and --force is not given.
std::vector<const RunWriter*> chosen_writers(const RunOptions& o) {
  const auto writers = run_writers_for(o.report_only, o.explain);
  if (!o.force)
    for (const RunWriter* w : writers)
      if (const std::string f = o.out + "/" + w->file; path_exists(f))
        throw InputError(f, "", "already exists; pass --force to overwrite or choose another --out");
  return writers;
}

// Runs the writers; prints what was written and the notes of those that wrote nothing.
void write_outputs(const std::vector<const RunWriter*>& writers, const RunArtifacts& artifacts, bool quiet) {
  std::string wrote, notes;
  for (const RunWriter* w : writers) {
    const std::string path = artifacts.dir + "/" + w->file;
    const Written result = w->write(artifacts, path);
    if (result.wrote) wrote.append(wrote.empty() ? " " : ", ").append(path);
    if (!result.note.empty()) notes.append("note: ").append(result.note).append("\n");
  }
  if (quiet) return;
  std::cout << "\nwrote" << wrote << "\n";
  if (writers.size() > 1) std::cout << "(open trace.json in ui.perfetto.dev, report.html in a browser)\n";
  std::cout << notes;
}

int run(const RunOptions& o) {
  std::optional<ParallelSetup> parallel;
  InputFiles files{o.platform, o.workload, o.calibration, o.scenario, o.policy_config, o.seed, nullptr};
  if (!o.parallel.empty())
    files.transform = [&](Graph g, const Platform& p) {
      parallel = parse_parallel(o.parallel, p, o.workload);
      return apply_parallel(std::move(g), *parallel);
    };
  if (!o.sets.empty())
    files.platform_loader = [&](const std::string& name) { return load_platform_with_sets(name, o.sets); };
  const RunInputs inputs(files);
  const Platform& platform = inputs.platform();
  const Graph& graph = inputs.graph();
  const Calibration& calibration = inputs.calibration();
  const CostModel& cost = inputs.cost();
  const Scenario& scenario = inputs.scenario();
  const PolicyContext ctx = inputs.context();
  if (!o.quiet && !calibration.entries.empty()) std::cout << calibration_usage_text(calibration, platform);
  if (o.plan.empty()) require_known_policy(o.policy);
  if (o.plan.empty() && o.plan_id) throw InputError("--plan-id", std::to_string(*o.plan_id), "needs --plan");

  const auto writers = chosen_writers(o);

  std::optional<pareto::StoredPlan> stored;
  if (!o.plan.empty()) stored = pareto::load_stored_plan(o.plan, o.plan_id, cost);
  std::optional<Explanation> explained;
  PolicyOutcome outcome = plan_and_execute(o, ctx, scenario, stored, explained);
  const CostModel& plan_cost = stored ? *stored->cost : cost;
  const Report report = make_report(
      {platform_label(platform.name, o.sets), graph.name, stored ? stored->label : o.policy, o.seed},
      outcome.plan, plan_cost, std::move(outcome.execution), std::move(outcome.cross_check));
  if (!fits_or_kept(report, platform, o.allow_over_capacity)) return 3;
  nlohmann::ordered_json json = report_json(report, o.timeline ? Timeline::always : Timeline::automatic);
  if (parallel) json["parallel"] = parallel_json(*parallel, report);
  if (!calibration.entries.empty()) json["calibration"] = calibration_usage_json(calibration, platform);
  const auto explain_doc =
      explained ? std::optional(explain_json(*explained, cost, {o.policy, platform.name, graph.name}))
                : std::nullopt;
  if (!o.quiet)
    std::cout << summary_text(report) << (parallel ? "\n" + parallel_summary(*parallel, report) + "\n" : "");
  write_outputs(writers, {report, json, explain_doc ? &*explain_doc : nullptr, o.out, o.force}, o.quiet);
  return 0;
}

Action run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Plan a workload on a platform with a policy, replay it and report");
  cmd->add_option("--platform", o->platform, "Platform file or preset name (see `heterosim platforms`)")
      ->required();
  cmd->add_option("--workload", o->workload,
                  "Graph file or builder spec such as random:ops=1000 (see `heterosim workloads`)")
      ->required();
  cmd->add_option("--policy", o->policy, "Scheduling policy, static or run-time (see `heterosim policies`)")
      ->capture_default_str();
  cmd->add_option(
         "--engine", o->engine,
         "simgrid: discrete-event replay; evaluator: in-process contention-aware model of the replay; "
         "analytic: contention-free O(V+E) lower bound")
      ->check(CLI::IsMember({"simgrid", "evaluator", "analytic"}))
      ->capture_default_str();
  std::string files;
  for (const RunWriter& w : run_writers().all())
    files.append(files.empty() ? "" : ", ").append(w.file);
  cmd->add_option("--out", o->out, "Directory for the run's files (" + files + ")")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed for random workloads and randomised policies")
      ->capture_default_str();
  cmd->add_option("--calibration", o->calibration, kCalibrationHelp);
  cmd->add_option("--set", o->sets,
                  "Change a platform field for this run, PATH=VALUE as a sweep axis's path (repeatable): "
                  "--set /devices/gpu0/issue_overhead=15us, --set /links/pcie_gpu/bandwidth=16GBps");
  cmd->add_option(
      "--scenario", o->scenario,
      "What-if file: background load on devices, degraded links, op-time noise (simgrid and evaluator)");
  cmd->add_option("--plan", o->plan,
                  "Replay a stored plan instead of planning: a front.json from `heterosim pareto` (with "
                  "--plan-id) or a file from `heterosim select --out`");
  cmd->add_option_function<int>(
      "--plan-id", [o](const int& id) { o->plan_id = id; }, "Which plan of the front --plan names");
  cmd->add_option(
      "--parallel", o->parallel,
      "Spread a training step over devices: dp=N,tp=T,pp=P[,microbatches=M][,bucket=25MiB]"
      "[,algo=ring|tree|hierarchical][,group=G][,channels=C][,overlap=on|off][,vocab=split][,zero=0-3]"
      "[,batch=B][,devices=...] (see docs/parallel.md)");
  cmd->add_option("--policy-config", o->policy_config,
                  "JSON file of policy parameters, keyed by policy name (see docs/policies.md)");
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("--allow-over-capacity", o->allow_over_capacity,
                "Keep a plan whose peak memory exceeds a device's capacity (exit 0, with a warning)");
  cmd->add_flag("--report-only", o->report_only, "Write report.json alone (what a sweep's points keep)");
  cmd->add_flag("--timeline", o->timeline,
                "Keep every op and transfer in report.json's timeline past " +
                    std::to_string(kTimelineOpsUpTo) + " ops (the default leaves them to timeline.csv)");
  cmd->add_flag(
      "--explain", o->explain,
      "Also write explain.json: the list scheduler's ranks and decisions (see `heterosim explain`)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  return [o] { return run(*o); };
}

HS_REGISTER_COMMAND(run, {"run", run_command})

} // namespace
} // namespace hs::cli
