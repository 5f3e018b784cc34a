// `heterosim pareto`: the Pareto front of latency, energy and peak memory (and optionally precision) over
// placements and graph rewrites, found by the archive search (or NSGA-II as a baseline), replayed in
// SimGrid, written as JSON, CSV and SVG, and printed as a table.
#include "cli/commands.hpp"
#include "cli/html_report.hpp"
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/front_report.hpp"
#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/nsga2_search.hpp"
#include "policies/pareto/proposal_prior.hpp"
#include "policies/pareto/select.hpp"
#include "policies/run_inputs.hpp"
#include "sim/json_input.hpp"
#include "workloads/workload_registry.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace hs::cli {
namespace {

struct ParetoOptions {
  std::string platform;
  std::string workload;
  std::string objectives = "latency,energy,memory";
  std::string algorithm = "archive";
  std::string out = "pareto-out";
  std::string calibration;
  std::string weights;
  std::string prior; // a proposal prior's name (policies/pareto/proposal_prior.hpp); empty: unguided
  int budget = 2000;
  double error_budget = 0.0;
  std::uint64_t seed = 0;
  bool force = false;
  bool no_replay = false;
  bool no_rewrites = false;
  bool quiet = false;
};

pareto::ProgressFn progress_bar(bool enabled) {
  if (!enabled) return {};
  return [](const pareto::HistoryPoint& h, int budget) {
    const int width = 30;
    const int filled = static_cast<int>(static_cast<double>(width) * h.evaluations / budget);
    std::fprintf(stderr, "\r[%s%s] %d/%d evaluations  front %d  hypervolume %.5f",
                 std::string(static_cast<std::size_t>(std::min(filled, width)), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - std::min(filled, width)), ' ').c_str(),
                 h.evaluations, budget, h.front_size, h.hypervolume);
    if (h.evaluations >= budget) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

// Every file the run writes, checked against overwriting before the search spends its budget.
std::vector<std::string> output_files(const ParetoOptions& o,
                                      const std::vector<pareto::Objective>& objectives) {
  std::vector<std::string> outputs = {o.out + "/front.json", o.out + "/front.csv", o.out + "/history.csv",
                                      o.out + "/front.html"};
  for (std::size_t a = 0; a < objectives.size(); ++a)
    for (std::size_t b = a + 1; b < objectives.size(); ++b)
      outputs.push_back(o.out + "/" + pareto::objective_name(objectives[a]) + "-" +
                        pareto::objective_name(objectives[b]) + ".svg");
  if (!o.force)
    for (const auto& f : outputs)
      if (path_exists(f))
        throw InputError(f, "", "already exists; pass --force to overwrite or choose another --out");
  return outputs;
}

// The guide for --prior: the named prior's per-op probabilities on this graph and platform.
std::unique_ptr<pareto::PriorGuide> prior_guide(const pareto::ParetoProblem& problem,
                                                const ParetoOptions& o) {
  if (o.prior.empty()) return nullptr;
  if (o.algorithm != "archive") throw InputError("--prior", o.prior, "guides the archive search only");
  const pareto::ProposalPrior* prior = nullptr;
  try {
    prior = &pareto::proposal_prior_registry().get(o.prior);
  } catch (const std::invalid_argument& e) { // an unknown name, answered with the nearest known one
    throw InputError("--prior", o.prior, e.what());
  }
  const auto p = prior->probabilities(problem.cost());
  pareto::check_probabilities(problem.cost(), p, o.prior);
  return std::make_unique<pareto::PriorGuide>(problem.encoding(), p, o.seed);
}

// The search, then (unless --no-replay) the replay of its front, labelled for the report.
pareto::FrontReport search_front(const pareto::ParetoProblem& problem, const ParetoOptions& o) {
  std::vector<std::string> skipped;
  const auto baselines = problem.baselines(o.seed, &skipped);
  pareto::SearchState state(problem, o.budget, progress_bar(!o.quiet && isatty(STDERR_FILENO)));
  std::unique_ptr<pareto::PriorGuide> guide = prior_guide(problem, o);
  if (o.algorithm == "nsga2")
    pareto::run_nsga2_search(state, baselines, o.seed);
  else
    pareto::run_archive_search(state, baselines, o.seed, guide.get());
  pareto::FrontReport report = pareto::make_front_report(state);
  report.platform = problem.cost().platform().name;
  report.workload = problem.cost().graph().name;
  report.algorithm = o.algorithm == "nsga2" ? "nsga2 (pagmo)" : "archive search";
  if (guide) report.algorithm.append(", prior ").append(o.prior);
  report.seed = o.seed;
  report.baselines = baselines;
  report.skipped_baselines = skipped;
  if (!o.no_replay) pareto::replay_in_simgrid(problem, report);
  return report;
}

// The front's points on the values it is defined on: replayed unless --no-replay.
std::vector<std::vector<double>> final_points(const pareto::FrontReport& report) {
  std::vector<std::vector<double>> pts;
  for (std::size_t i = 0; i < report.plans.size(); ++i)
    pts.push_back(pareto::final_value(report, i).point);
  return pts;
}

void write_front(const pareto::ParetoProblem& problem, const pareto::FrontReport& report,
                 const std::vector<std::string>& outputs, const ParetoOptions& o) {
  std::error_code made;
  std::filesystem::create_directories(o.out, made);
  if (made) throw InputError(o.out, "", "cannot create the output directory: " + made.message());
  const nlohmann::ordered_json front = pareto::front_json(problem, report);
  write_file_atomically(outputs[0], front.dump(1) + "\n", o.force);
  write_file_atomically(outputs[1], pareto::front_csv(problem, report), o.force);
  write_file_atomically(outputs[2], pareto::history_csv(report), o.force);
  write_file_atomically(outputs[3], front_page(front), o.force);
  std::size_t k = 4;
  for (const auto& plot : pareto::front_plots(problem, report))
    write_file_atomically(outputs[k++], plot.second, o.force);
}

void print_summary(const pareto::ParetoProblem& problem, const pareto::FrontReport& report,
                   const std::vector<std::string>& outputs) {
  std::cout << report.algorithm << " on " << report.workload << " / " << report.platform << ": "
            << report.plans.size() << " plans on the front after " << report.evaluations
            << " evaluations; hypervolume "
            << pareto::hypervolume(final_points(report), problem.reference_point()) << " ("
            << pareto::final_engine(report) << ")"
            << " (reference point";
  for (double v : problem.reference_point())
    std::cout << ' ' << v;
  std::cout << "; latency and energy relative to " << problem.reference_policy() << ")\n";
  std::cout << pareto::front_table(problem, report);
  for (const auto& s : report.skipped_baselines)
    std::cout << "baseline skipped: " << s << "\n";
  if (report.weighted) std::cout << "weighted-sum choice: plan " << *report.weighted << "\n";
  std::cout << "wrote";
  for (const auto& f : outputs)
    std::cout << ' ' << f;
  std::cout << "\n";
}

int run_pareto(const ParetoOptions& o) {
  const auto objectives = pareto::parse_objective_list(o.objectives, "--objectives");
  if (o.budget < 1) throw InputError("--budget", std::to_string(o.budget), "must be at least 1");
  if (!(o.error_budget >= 0) || !std::isfinite(o.error_budget))
    throw InputError("--error-budget", std::to_string(o.error_budget), "must be a finite number, 0 or more");
  std::vector<double> weights;
  if (!o.weights.empty()) weights = pareto::parse_weights(o.weights, objectives.size());
  const RunInputs inputs({o.platform, o.workload, o.calibration, "", "", o.seed, nullptr});
  const CostModel& cost = inputs.cost();

  pareto::ProblemOptions po;
  po.objectives = objectives;
  po.error_budget = o.error_budget;
  po.encoding.fusion = po.encoding.splitting = !o.no_rewrites;
  const pareto::ParetoProblem problem(cost, po);
  const std::vector<std::string> outputs = output_files(o, objectives);

  pareto::FrontReport report = search_front(problem, o);
  if (report.plans.empty()) {
    std::cerr
        << "heterosim: no feasible plan was found (every candidate exceeded a device's capacity or the error "
           "budget); nothing was written\n";
    return 3;
  }
  if (!weights.empty()) {
    report.weights = weights;
    report.weighted = pareto::weighted_choice(final_points(report), weights);
  }
  write_front(problem, report, outputs, o);
  if (!o.quiet) print_summary(problem, report, outputs);
  return 0;
}

Action pareto_command(CLI::App& app) {
  auto o = std::make_shared<ParetoOptions>();
  auto* cmd = app.add_subcommand(
      "pareto", "Search the Pareto front of latency, energy and memory over placements and graph rewrites");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->required();
  cmd->add_option("--workload", o->workload, "Graph file or builder spec")->required();
  cmd->add_option("--budget", o->budget, "Distinct plan evaluations (contention-aware evaluator)")
      ->capture_default_str();
  cmd->add_option("--objectives", o->objectives, "Comma-separated: latency, energy, memory, precision")
      ->capture_default_str();
  cmd->add_option("--algorithm", o->algorithm,
                  "archive: the project's search; nsga2: pagmo's NSGA-II on the same encoding")
      ->check(CLI::IsMember({"archive", "nsga2"}))
      ->capture_default_str();
  cmd->add_option("--prior", o->prior,
                  "Guide the archive search with a proposal prior: " +
                      name_list(pareto::proposal_prior_registry().names()) +
                      " (gnn, the learned one, where built with libtorch)");
  cmd->add_option("--seed", o->seed, "Seed of the search (and of random workloads)")->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Directory for front.json, front.csv, history.csv, front.html and the SVG plots")
      ->capture_default_str();
  cmd->add_option("--error-budget", o->error_budget,
                  "Precision penalty allowed (with the precision objective)")
      ->capture_default_str();
  cmd->add_option("--weights", o->weights,
                  "Weighted-sum mode: one weight per objective; also picks that plan from the front");
  cmd->add_option("--calibration", o->calibration, kCalibrationHelp);
  cmd->add_flag("--no-replay", o->no_replay, "Skip the SimGrid replay of the final front");
  cmd->add_flag("--no-rewrites", o->no_rewrites, "Search placements only (no fusion or splitting)");
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("--quiet", o->quiet, "Print nothing but errors");
  return [o] { return run_pareto(*o); };
}

HS_REGISTER_COMMAND(pareto, {"pareto", pareto_command})

} // namespace
} // namespace hs::cli
