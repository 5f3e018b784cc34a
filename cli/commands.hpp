#pragma once
// Subcommands register themselves (one file each under cli/), so adding one touches no other file:
//
//   namespace hs::cli {
//   static const bool registered = register_command({"info", [](CLI::App& app) -> Action { ... }});
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

} // namespace hs::cli
