// heterosim: what happens when this compute graph runs on that mix of devices under this policy?
#include "cli/commands.hpp"
#include "cli/plugins.hpp"
#include "sim/error.hpp"
#include "sim/nearest_name.hpp"
#include "sim/plan.hpp"

#include <algorithm>
#include <iostream>

namespace hs::cli {

Registry<Command>& command_registry() {
  static Registry<Command> registry("command");
  return registry;
}

std::vector<Command> registered_commands() {
  auto list = command_registry().all();
  std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) {
    if ((a.name == "run") != (b.name == "run")) return a.name == "run";
    return a.name < b.name;
  });
  return list;
}

// CLI11 would answer an unknown first word with "A subcommand is required"; a command that a plug-in module
// provides (validate, train-gnn) is unknown when its module is missing, and the message should say where
// modules are looked for.
bool refuse_unknown_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::vector<std::string> names;
  for (const auto& c : registered_commands())
    names.push_back(c.name);
  if (std::find(names.begin(), names.end(), argv[1]) != names.end()) return false;
  const std::string dir = plugin_directory();
  std::cerr << "heterosim: error: unknown command '" << argv[1] << "'" << did_you_mean(argv[1], names)
            << "; commands: " << name_list(names) << ". Commands of plug-in modules need their module in "
            << (dir.empty() ? std::string("a plug-in directory (none found)") : dir) << "\n";
  return true;
}

} // namespace hs::cli

int main(int argc, char** argv) {
  hs::cli::load_plugins(); // before the commands read the registries (their help lists the policies)
  if (hs::cli::refuse_unknown_command(argc, argv)) return 1;
  CLI::App app{"HeteroSim: a discrete-event simulator of ML graphs on heterogeneous hardware (SimGrid)"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, hs::cli::Action>> actions;
  for (const auto& c : hs::cli::registered_commands()) {
    auto action = c.install(app);
    actions.emplace_back(app.get_subcommands([](CLI::App*) { return true; }).back(), std::move(action));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // Exit codes (README, "Exit codes"): 1 bad input, 2 impossible plan, 3 a plan over capacity or no feasible
  // plan, 4 no stored plan within select's limits (both from the commands), 5 an internal failure.
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return action();
  } catch (const hs::InputError& e) {
    std::cerr << "heterosim: error: " << e.what() << "\n"; // already names the file and the place
    return 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "heterosim: error: " << e.what() << "\n";
    return 1;
  } catch (const hs::PlanError& e) {
    std::cerr << "heterosim: error: impossible plan: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "heterosim: internal error: " << e.what() << "\n";
    return 5;
  }
  return 0;
}
