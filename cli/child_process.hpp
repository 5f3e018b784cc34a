#pragma once
// Other programs the CLI runs: rsvg-convert, sbatch, and itself (a sweep's points).
#include <optional>
#include <string>
#include <vector>

namespace hs::cli {

// The full path of `program` in a PATH directory, if one holds it executable.
std::optional<std::string> find_on_path(const std::string& program);

// This program's own path (/proc/self/exe), so children and Slurm jobs run the same binary.
std::string own_executable();

struct Captured {
  int status;         // the exit code, or 128 + the signal that ended it
  std::string output; // its standard output (standard error passes through)
};

// Runs args[0] (a path) with the arguments and waits for it; throws std::runtime_error when it cannot start.
Captured run_captured(const std::vector<std::string>& args);

// Starts args[0] with stdin from /dev/null and stdout and stderr into the file `log`, and returns at once
// with its pid (for waitpid); throws std::runtime_error when it cannot start.
int spawn_logged(const std::vector<std::string>& args, const std::string& log);

// One argument as a POSIX shell reads it back: as it is when it holds only safe characters, else in single
// quotes.
std::string shell_quoted(const std::string& arg);
// A command line a user can paste: the arguments, each shell_quoted, separated by spaces.
std::string shell_command(const std::vector<std::string>& args);

} // namespace hs::cli
