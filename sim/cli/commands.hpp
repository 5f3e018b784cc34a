#pragma once
// Each subcommand registers its options on the CLI11 app and returns what to run once parsed.
#include <CLI/CLI.hpp>
#include <functional>

namespace hs::cli {

using Action = std::function<int()>;

Action add_run_command(CLI::App& app);
Action add_policies_command(CLI::App& app);
Action add_platforms_command(CLI::App& app);
Action add_workloads_command(CLI::App& app);

} // namespace hs::cli
