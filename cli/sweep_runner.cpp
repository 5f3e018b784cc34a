#include "cli/sweep_runner.hpp"

#include "cli/child_process.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <sys/wait.h>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// What the run's exit code means (cli/main.cpp, "Exit codes").
std::string outcome_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return "crashed (signal " + std::to_string(WTERMSIG(wait_status)) + ")";
  switch (WEXITSTATUS(wait_status)) {
  case 0:
    return "ok";
  case 1:
    return "bad input";
  case 2:
    return "impossible plan";
  case 3:
    return "over capacity";
  default:
    return "failed (exit " + std::to_string(WEXITSTATUS(wait_status)) + ")";
  }
}

std::string last_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

struct Running {
  std::size_t index;
  Clock::time_point started;
};

pid_t spawn_point(const SweepSpec& spec, const SweepPoint& p, const std::string& out) {
  const fs::path final_dir = point_directory(out, spec, p.index);
  const fs::path dir = final_dir.string() + ".partial";
  fs::create_directories(dir);
  std::string platform;
  if (!p.platform_json.is_null()) {
    platform = (dir / "platform.json").string();
    write_text(platform, p.platform_json.dump(1) + "\n");
  }
  const auto args = point_command(p, own_executable(), platform, dir.string());
  // Recorded with the paths the point has once renamed into place, so it can be run again as written.
  const std::string final_platform = platform.empty() ? "" : (final_dir / "platform.json").string();
  write_text(dir / "command.txt",
             shell_command(point_command(p, own_executable(), final_platform, final_dir.string())) +
                 " --force\n");
  return spawn_logged(args, (dir / "run.log").string());
}

// The outcome goes in before the rename, so a finished point always has one.
void finish_point(const SweepSpec& spec, std::size_t index, const std::string& out, int wait_status) {
  const fs::path final_dir = point_directory(out, spec, index);
  const fs::path dir = final_dir.string() + ".partial";
  const std::string outcome = outcome_of(wait_status);
  Json o{{"outcome", outcome}};
  if (outcome != "ok") o["message"] = last_line(dir / "run.log");
  write_text(dir / "outcome.json", o.dump(1) + "\n");
  fs::rename(dir, final_dir);
}

std::string point_title(const SweepSpec& spec, const SweepPoint& p) {
  std::string s;
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    s += (a ? ", " : "") + spec.axes[a].name + "=" + p.labels[a];
  return s;
}

} // namespace

std::string point_directory(const std::string& out, const SweepSpec& spec, std::size_t index) {
  const std::size_t digits = std::max<std::size_t>(4, std::to_string(spec.point_count() - 1).size());
  char name[32];
  std::snprintf(name, sizeof name, "p%0*zu", static_cast<int>(digits), index);
  return (fs::path(out) / "points" / name).string();
}

bool point_finished(const std::string& out, const SweepSpec& spec, std::size_t index) {
  std::error_code ec;
  return fs::exists(fs::path(point_directory(out, spec, index)) / "outcome.json", ec);
}

std::vector<std::string> point_command(const SweepPoint& p, const std::string& executable,
                                       const std::string& platform_file, const std::string& out_dir) {
  return {executable,   "run",      "--platform",    platform_file.empty() ? p.platform : platform_file,
          "--workload", p.workload, "--policy",      p.policy,
          "--engine",   p.engine,   "--seed",        std::to_string(p.seed),
          "--out",      out_dir,    "--report-only", "--quiet"};
}

std::size_t run_sweep_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                             const SweepRunOptions& o) {
  std::vector<std::size_t> todo;
  std::size_t in_shard = 0;
  for (const auto& p : points) {
    if (static_cast<int>(p.index % static_cast<std::size_t>(o.shards)) != o.shard) continue;
    ++in_shard;
    fs::remove_all(point_directory(o.out, spec, p.index) + ".partial"); // what an interrupted sweep left
    if (!point_finished(o.out, spec, p.index)) todo.push_back(p.index);
  }
  if (!o.quiet)
    std::cout << "sweep " << spec.name << ": " << in_shard << " points"
              << (o.shards > 1 ? " in shard " + std::to_string(o.shard) + "/" + std::to_string(o.shards) : "")
              << ", " << in_shard - todo.size() << " finished before; running " << todo.size() << " with "
              << std::min<std::size_t>(todo.size(), static_cast<std::size_t>(o.jobs)) << " processes\n"
              << std::flush;
  std::map<pid_t, Running> running;
  std::size_t next = 0, done = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < static_cast<std::size_t>(o.jobs)) {
      const std::size_t i = todo[next++];
      running[spawn_point(spec, points[i], o.out)] = {i, Clock::now()};
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running r = it->second;
    running.erase(it);
    finish_point(spec, r.index, o.out, status);
    ++done;
    if (!o.quiet) {
      const double s = std::chrono::duration<double>(Clock::now() - r.started).count();
      char took[32];
      std::snprintf(took, sizeof took, "%.1f s", s);
      std::cout << "[" << done << "/" << todo.size() << "] "
                << fs::path(point_directory(o.out, spec, r.index)).filename().string() << " ("
                << point_title(spec, points[r.index]) << "): " << outcome_of(status) << " in " << took << "\n"
                << std::flush;
    }
  }
  return todo.size();
}

} // namespace hs::cli
