#include "cli/sweep_output.hpp"

#include "cli/sweep_runner.hpp"
#include "cli/sweep_table.hpp"
#include "sim/json_input.hpp"

#include <filesystem>
#include <iostream>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

bool internal_failure(const std::string& outcome) {
  return outcome.rfind("crashed", 0) == 0 || outcome.rfind("failed", 0) == 0;
}

} // namespace

int write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points, const std::string& out,
                        bool quiet) {
  const SweepTable table = collect_sweep(spec, points, out);
  const std::string csv = (fs::path(out) / "sweep.csv").string();
  write_file_atomically(csv, sweep_csv(table), true);
  int not_ok = 0, exit_code = 0;
  for (const auto& r : table.rows) {
    if (r.outcome == "ok") continue;
    ++not_ok;
    if (internal_failure(r.outcome)) exit_code = 5;
    if (!quiet)
      std::cerr << "heterosim: point " << fs::path(point_directory(out, spec, r.index)).filename().string()
                << ": " << r.outcome << " (see its run.log)\n";
  }
  if (!quiet)
    std::cout << "wrote " << csv << " (" << table.rows.size() << " points"
              << (not_ok ? ", " + std::to_string(not_ok) + " without results" : std::string()) << ")\n";
  return exit_code;
}

} // namespace hs::cli
