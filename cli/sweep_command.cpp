// `heterosim sweep`: a grid of runs from one sweep file, run here in parallel processes or on Slurm,
// joined into one CSV with plots.
#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/slurm_sweep.hpp"
#include "cli/sweep_metrics.hpp"
#include "cli/sweep_output.hpp"
#include "cli/sweep_runner.hpp"
#include "cli/sweep_spec.hpp"
#include "sim/json_input.hpp"
#include "workloads/workload_registry.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  std::string file;
  std::string out;
  int jobs = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  std::string shard; // "K/N"
  bool merge_only = false;
  bool slurm = false;
  int shards = 0; // 0: one per point, at most 8
  bool wait = false;
  std::vector<std::string> sbatch_options;
  bool force = false;
  bool quiet = false;
};

std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      const int k = std::stoi(text.substr(0, slash)), n = std::stoi(text.substr(slash + 1));
      if (n > 0 && k >= 0 && k < n) return {k, n};
    }
  } catch (const std::exception&) {
  }
  throw InputError("--shard", text, "expected K/N with 0 <= K < N, like 0/4");
}

// The directory keeps a copy of the sweep it holds: the same sweep resumes, another one is refused.
void claim_directory(const SweepSpec& spec, const SweepOptions& o) {
  const std::string stored = (fs::path(o.out) / "sweep.json").string();
  if (path_exists(stored) && !o.force) {
    if (read_json_file(stored) != spec.canonical)
      throw InputError(stored, "",
                       "holds another sweep than " + spec.file +
                           "; choose another --out, or pass --force to discard its points and start afresh");
    return;
  }
  if (o.force) fs::remove_all(fs::path(o.out) / "points");
  fs::create_directories(o.out);
  write_file_atomically(stored, spec.canonical.dump(1) + "\n", true);
}

// Every distinct workload builds once before anything runs, so a typo fails here and not in every point.
void check_workloads(const std::vector<SweepPoint>& points, const SweepSpec& spec) {
  std::set<std::pair<std::string, std::uint64_t>> seen;
  for (const auto& p : points)
    if (seen.insert({p.workload, p.seed}).second) {
      try {
        load_workload(p.workload, p.seed);
      } catch (const InputError& e) {
        throw InputError(spec.file, "workload '" + p.workload + "'", e.what());
      } catch (const std::invalid_argument& e) {
        throw InputError(spec.file, "workload '" + p.workload + "'", e.what());
      }
    }
}

int sweep(const SweepOptions& o) {
  const SweepSpec spec = load_sweep(o.file);
  const std::vector<SweepPoint> points = expand_sweep(spec);
  check_workloads(points, spec);
  if (o.merge_only && (o.slurm || !o.shard.empty()))
    throw InputError("--merge", "", "cannot be combined with --slurm or --shard");
  if (!o.merge_only) claim_directory(spec, o);
  if (o.slurm) {
    SlurmOptions s{o.shards > 0 ? o.shards : static_cast<int>(std::min<std::size_t>(points.size(), 8)),
                   o.wait, o.sbatch_options, o.quiet};
    return submit_sweep_to_slurm(own_executable(), o.out, s);
  }
  SweepRunOptions run{o.out, o.jobs, 0, 1, o.quiet};
  if (!o.shard.empty()) std::tie(run.shard, run.shards) = parse_shard(o.shard);
  if (!o.merge_only) run_sweep_points(spec, points, run);
  if (run.shards > 1) return 0; // the merge step joins the shards
  return write_sweep_outputs(spec, points, o.out, o.quiet);
}

Action sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run a grid of platform variants, policies, workloads, engines and "
                                          "seeds from a sweep file; join the results into one CSV and plots");
  cmd->add_option("file", o->file, "Sweep file (format heterosim-sweep; see docs/sweeps.md)")->required();
  cmd->add_option("--out", o->out,
                  "Directory for the points, sweep.csv and the plots (resumed if it holds "
                  "the same sweep)")
      ->required();
  cmd->add_option("-j,--jobs", o->jobs, "Points run at once on this machine")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--shard", o->shard, "Run only shard K/N: the points whose index is K modulo N");
  cmd->add_flag("--merge", o->merge_only, "Only join finished points into the CSV and plots");
  cmd->add_flag("--slurm", o->slurm,
                "Submit the points as a Slurm job array plus a merge job (needs sbatch)");
  cmd->add_option("--shards", o->shards, "Array tasks for --slurm (default: one per point, at most 8)")
      ->check(CLI::Range(1, 10000));
  cmd->add_flag("--wait", o->wait, "With --slurm: wait for the merge job and return its exit status");
  cmd->add_option("--sbatch-option", o->sbatch_options,
                  "Extra sbatch option for both jobs (repeatable), "
                  "like --sbatch-option=--partition=debug");
  cmd->add_flag("--force", o->force, "Discard the finished points of another sweep in --out");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  cmd->footer("Metrics (the sweep file's \"metrics\"):\n" + sweep_metric_help());
  return [o] { return sweep(*o); };
}

HS_REGISTER_COMMAND(sweep, {"sweep", sweep_command})

} // namespace
} // namespace hs::cli
