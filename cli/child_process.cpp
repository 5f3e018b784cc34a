#include "cli/child_process.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hs::cli {

std::optional<std::string> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  const std::string dirs = path;
  std::size_t from = 0;
  while (from <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', from), dirs.size());
    const std::string dir = dirs.substr(from, colon - from);
    // An empty PATH entry means the current directory, which a tool should not pick a program from.
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    from = colon + 1;
  }
  return std::nullopt;
}

std::string own_executable() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's path (/proc/self/exe): " + ec.message());
  return self.string();
}

namespace {

// posix_spawn of args[0] with `actions` (destroyed here); returns the spawn error (0 when it started).
int start(const std::vector<std::string>& args, posix_spawn_file_actions_t& actions, pid_t& pid) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const int spawned = posix_spawn(&pid, argv.at(0), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return spawned;
}

} // namespace

int spawn_logged(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  if (const int spawned = start(args, actions, pid); spawned != 0)
    throw std::runtime_error("cannot start " + args.at(0) + ": " + std::strerror(spawned));
  return pid;
}

Captured run_captured(const std::vector<std::string>& args) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("cannot make a pipe for " + args.at(0));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  pid_t pid = 0;
  const int spawned = start(args, actions, pid);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(out[0]);
    throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(spawned));
  }
  std::string output;
  char buf[65536];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() &&
      arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+") ==
          std::string::npos)
    return arg;
  std::string q = "'";
  for (char c : arg)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_command(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args)
    s.append(s.empty() ? "" : " ").append(shell_quoted(a));
  return s;
}

} // namespace hs::cli
