// heterosim: what happens when this compute graph runs on that mix of devices under this policy?
#include "cli/commands.hpp"
#include "cli/plugins.hpp"
#include "sim/error.hpp"
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

} // namespace hs::cli

int main(int argc, char** argv) {
  hs::cli::load_plugins(); // before the commands read the registries (their help lists the policies)
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
