#pragma once
// Subcommands register themselves (one file each under cli/), so adding one touches no other file:
//
//   namespace hs::cli {
//   HS_REGISTER_COMMAND(info, {"info", [](CLI::App& app) -> Action { ... }})
//   }
#include "sim/registry.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hs::cli {

// What to run once the command line is parsed; returns the process exit code.
using Action = std::function<int()>;

struct Command {
  std::string name; // for ordering in --help
  // Adds the subcommand and its options to `app`; returns what to run if it is chosen.
  std::function<Action(CLI::App& app)> install;
};

Registry<Command>& command_registry();
inline bool register_command(Command c) {
  return command_registry().add(std::move(c));
}
std::vector<Command> registered_commands(); // sorted by name, "run" first

// The --calibration option of the commands that plan (run, compare, explain, pareto).
inline constexpr const char* kCalibrationHelp =
    "Calibration file overriding the platform's efficiencies, or the name of one shipped in models/ "
    "(deepbench-gpu: the learned GPU model); default: the platform's own \"calibration\" where it names one; "
    "none: the devices' figures alone";

} // namespace hs::cli

// Inside namespace hs::cli (an anonymous namespace in it is fine); `id` makes the variable's name unique, so
// command files may also be compiled together (a unity build).
#define HS_REGISTER_COMMAND(id, ...)                                                                         \
  [[maybe_unused]] const bool hs_command_##id = ::hs::cli::register_command(__VA_ARGS__);
