// heterosim: what happens when this compute graph runs on that mix of devices under this policy?
#include "sim/cli/commands.hpp"
#include "sim/error.hpp"
#include "sim/plan.hpp"

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"HeteroSim: a discrete-event simulator of ML graphs on heterogeneous hardware (SimGrid)"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, hs::cli::Action>> commands;
  auto add = [&](hs::cli::Action (*make)(CLI::App&)) {
    auto action = make(app);
    commands.emplace_back(app.get_subcommands([](CLI::App*) { return true; }).back(), std::move(action));
  };
  add(hs::cli::add_run_command);
  add(hs::cli::add_policies_command);
  add(hs::cli::add_platforms_command);
  add(hs::cli::add_workloads_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
  } catch (const hs::InputError& e) {
    std::cerr << "heterosim: error: " << e.what() << "\n";
    return 1;
  } catch (const hs::PlanError& e) {
    std::cerr << "heterosim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "heterosim: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
