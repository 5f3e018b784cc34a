#include "cli/slurm_sweep.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

std::string single_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Captured {
  int status;
  std::string output;
};

// Runs a program and returns its exit status and standard output.
Captured run_captured(const std::vector<std::string>& args) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[0]);
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fd[1]);
  if (rc != 0) {
    close(pipe_fd[0]);
    throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  }
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fd[0], buf, sizeof buf)) > 0;)
    output.append(buf, static_cast<std::size_t>(n));
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

std::string script(const std::vector<std::string>& directives, const std::string& command) {
  std::string s = "#!/bin/sh\n# Written by heterosim sweep --slurm.\n";
  for (const auto& d : directives)
    s += "#SBATCH " + d + "\n";
  return s + "exec " + command + "\n";
}

std::string submit(const std::string& sbatch, std::vector<std::string> options, const std::string& file) {
  options.insert(options.begin(), {sbatch, "--parsable"});
  options.push_back(file);
  const Captured c = run_captured(options);
  const std::string id = c.output.substr(0, c.output.find_first_of(";\n"));
  if (!c.status && id.empty()) throw std::runtime_error("sbatch printed no job id for " + file);
  if (c.status) throw std::runtime_error("sbatch failed (exit " + std::to_string(c.status) + ") for " + file);
  return id;
}

} // namespace

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t begin = 0; begin <= dirs.size();) {
    const auto end = std::min(dirs.find(':', begin), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / program;
    if (end > begin && access(candidate.c_str(), X_OK) == 0) return candidate.string();
    begin = end + 1;
  }
  return "";
}

int submit_sweep_to_slurm(const std::string& executable, const std::string& out, const SlurmOptions& o) {
  const std::string sbatch = find_on_path("sbatch");
  if (sbatch.empty())
    throw InputError("--slurm", "",
                     "no 'sbatch' on PATH: install Slurm's client tools (Debian: slurm-client) where the "
                     "cluster's sbatch is, or run the sweep here without --slurm");
  const fs::path dir = fs::absolute(out) / "slurm";
  fs::create_directories(dir);
  const std::string self = single_quoted(executable),
                    sweep = single_quoted((fs::absolute(out) / "sweep.json").string());
  const std::string outq = single_quoted(fs::absolute(out).string()), n = std::to_string(o.shards);
  write_file_atomically((dir / "shards.sbatch").string(),
                        script({"--job-name=heterosim-sweep", "--array=0-" + std::to_string(o.shards - 1),
                                "--ntasks=1", "--output=" + (dir / "shard-%a.log").string()},
                               self + " sweep " + sweep + " --out " + outq +
                                   " --shard \"$SLURM_ARRAY_TASK_ID/" + n + "\" --jobs 1 --quiet"),
                        true);
  write_file_atomically(
      (dir / "merge.sbatch").string(),
      script({"--job-name=heterosim-sweep-merge", "--ntasks=1", "--output=" + (dir / "merge.log").string()},
             self + " sweep " + sweep + " --out " + outq + " --merge"),
      true);
  const std::string array = submit(sbatch, o.sbatch_options, (dir / "shards.sbatch").string());
  auto merge_options = o.sbatch_options;
  // Without kill-on-invalid-dep a merge whose shards failed would wait forever (and --wait with it).
  merge_options.insert(merge_options.end(), {"--dependency=afterok:" + array, "--kill-on-invalid-dep=yes"});
  if (!o.quiet)
    std::cout << "submitted job array " << array << " (" << o.shards << " shards; logs in " << dir.string()
              << ")\n"
              << std::flush;
  if (!o.wait) {
    const std::string merge = submit(sbatch, merge_options, (dir / "merge.sbatch").string());
    if (!o.quiet) std::cout << "submitted merge job " << merge << " (runs when every shard has succeeded)\n";
    return 0;
  }
  merge_options.push_back("--wait");
  merge_options.insert(merge_options.begin(), {sbatch, "--parsable"});
  merge_options.push_back((dir / "merge.sbatch").string());
  const Captured c = run_captured(merge_options);
  if (!o.quiet)
    std::cout << "merge job " << c.output.substr(0, c.output.find_first_of(";\n")) << " ended with exit "
              << c.status << " (log: " << (dir / "merge.log").string() << ")\n";
  return c.status;
}

} // namespace hs::cli
