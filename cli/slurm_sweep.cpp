#include "cli/slurm_sweep.hpp"

#include "cli/child_process.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

std::string script(const std::vector<std::string>& directives, const std::string& command) {
  std::string s = "#!/bin/sh\n# Written by heterosim sweep --slurm.\n";
  for (const auto& d : directives)
    s += "#SBATCH " + d + "\n";
  return s + "exec " + command + "\n";
}

// Submits `file` with sbatch --parsable and the options; returns sbatch's exit status (with --wait, the
// job's) and the job id it printed.
std::pair<int, std::string> submit(const std::string& sbatch, std::vector<std::string> options,
                                   const std::string& file) {
  options.insert(options.begin(), {sbatch, "--parsable"});
  options.push_back(file);
  const Captured c = run_captured(options);
  return {c.status, c.output.substr(0, c.output.find_first_of(";\n"))};
}

// The job id of a submission that must succeed.
std::string submitted(const std::pair<int, std::string>& s, const std::string& file) {
  if (s.first) throw std::runtime_error("sbatch failed (exit " + std::to_string(s.first) + ") for " + file);
  if (s.second.empty()) throw std::runtime_error("sbatch printed no job id for " + file);
  return s.second;
}

} // namespace

int submit_sweep_to_slurm(const std::string& executable, const std::string& out, const SlurmOptions& o) {
  const auto found = find_on_path("sbatch");
  if (!found)
    throw InputError("--slurm", "",
                     "no 'sbatch' on PATH: install Slurm's client tools (Debian: slurm-client) where the "
                     "cluster's sbatch is, or run the sweep here without --slurm");
  const std::string& sbatch = *found;
  const fs::path dir = fs::absolute(out) / "slurm";
  fs::create_directories(dir);
  const std::string shards_file = (dir / "shards.sbatch").string(),
                    merge_file = (dir / "merge.sbatch").string();
  const std::string self = shell_quoted(executable),
                    sweep = shell_quoted((fs::absolute(out) / "sweep.json").string());
  const std::string outq = shell_quoted(fs::absolute(out).string()), n = std::to_string(o.shards);
  write_file_atomically(shards_file,
                        script({"--job-name=heterosim-sweep", "--array=0-" + std::to_string(o.shards - 1),
                                "--ntasks=1", "--output=" + (dir / "shard-%a.log").string()},
                               self + " sweep " + sweep + " --out " + outq +
                                   " --shard \"$SLURM_ARRAY_TASK_ID/" + n + "\" --jobs 1 --quiet"),
                        true);
  write_file_atomically(
      merge_file,
      script({"--job-name=heterosim-sweep-merge", "--ntasks=1", "--output=" + (dir / "merge.log").string()},
             self + " sweep " + sweep + " --out " + outq + " --merge"),
      true);
  const std::string array = submitted(submit(sbatch, o.sbatch_options, shards_file), shards_file);
  auto merge_options = o.sbatch_options;
  // Without kill-on-invalid-dep a merge whose shards failed would wait forever (and --wait with it).
  merge_options.insert(merge_options.end(), {"--dependency=afterok:" + array, "--kill-on-invalid-dep=yes"});
  if (!o.quiet)
    std::cout << "submitted job array " << array << " (" << o.shards << " shards; logs in " << dir.string()
              << ")\n"
              << std::flush;
  if (!o.wait) {
    const std::string merge = submitted(submit(sbatch, merge_options, merge_file), merge_file);
    if (!o.quiet) std::cout << "submitted merge job " << merge << " (runs when every shard has succeeded)\n";
    return 0;
  }
  merge_options.push_back("--wait");
  const auto [status, merge] = submit(sbatch, merge_options, merge_file);
  if (!o.quiet)
    std::cout << "merge job " << merge << " ended with exit " << status
              << " (log: " << (dir / "merge.log").string() << ")\n";
  return status;
}

} // namespace hs::cli
