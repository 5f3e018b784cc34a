// `heterosim policies | platforms | workloads`: what exists, one line each.
#include "cli/commands.hpp"
#include "policies/policy.hpp"
#include "sim/platform.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace hs::cli {

namespace {

Action policies_command(CLI::App& app) {
  app.add_subcommand("policies", "List the scheduling policies, one line each");
  return [] {
    for (const Policy& p : policy_registry().all())
      std::cout << p.name() << "\t" << p.mode() << "\t" << p.description() << "\n";
    return 0;
  };
}

Action platforms_command(CLI::App& app) {
  app.add_subcommand("platforms", "List the preset platforms, one line each");
  return [] {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    if (fs::is_directory(platforms_directory()))
      for (const auto& entry : fs::directory_iterator(platforms_directory()))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const Platform p = load_platform(f.string());
      std::string kinds;
      for (const auto& d : p.devices)
        kinds += (kinds.empty() ? "" : ",") + d.name;
      std::cout << f.stem().string() << "\t" << p.devices.size() << " devices (" << kinds << "), "
                << p.links.size() << " links\t" << p.description << "\n";
    }
    if (files.empty()) std::cout << "(no presets in " << platforms_directory() << ")\n";
    return 0;
  };
}

Action workloads_command(CLI::App& app) {
  app.add_subcommand(
      "workloads",
      "List the workload builders and their parameters, one line each, and the graph file formats");
  return [] {
    for (const auto& w : workload_builders().all())
      std::cout << w.name << "\t" << w.description << "\t[" << w.parameter_line() << "]\n";
    std::cout << "\nfiles: .json (heterosim-graph)";
    for (const auto& f : workload_file_formats().all())
      std::cout << ", " << f.extension << " (" << f.description << ")";
    std::cout << "\n";
    return 0;
  };
}

const bool registered = register_command({"policies", policies_command}) &&
                        register_command({"platforms", platforms_command}) &&
                        register_command({"workloads", workloads_command});

} // namespace
} // namespace hs::cli
