// Test tool (not installed, not a subcommand): writes a page of cli/html_report.hpp from JSON files, so the
// browser test can load pages for inputs no command produces yet (a sweep, an explain document).
//   hs_write_page run REPORT.json [EXPLAIN.json] OUT.html
//   hs_write_page front FRONT.json OUT.html
//   hs_write_page sweep SWEEP.json OUT.html
#include "cli/html_report.hpp"
#include "sim/json_input.hpp"

#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

namespace {

// Keeps the members' order (a report's devices in platform order), as the commands' own documents do.
nlohmann::ordered_json read_ordered(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw hs::InputError(path, "", "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw hs::InputError(path, "", e.what());
  }
}

int usage() {
  std::cerr << "usage: hs_write_page run REPORT.json [EXPLAIN.json] OUT.html | front FRONT.json OUT.html | "
               "sweep SWEEP.json OUT.html\n";
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() < 3) return usage();
    std::string page;
    if (args[0] == "run" && (args.size() == 3 || args.size() == 4)) {
      const auto report = read_ordered(args[1]);
      const auto explain = args.size() == 4 ? read_ordered(args[2]) : nlohmann::ordered_json();
      page = hs::cli::run_page(report, args.size() == 4 ? &explain : nullptr);
    } else if (args[0] == "front" && args.size() == 3) {
      page = hs::cli::front_page(read_ordered(args[1]));
    } else if (args[0] == "sweep" && args.size() == 3) {
      page = hs::cli::sweep_page(hs::read_json_file(args[1]));
    } else {
      return usage();
    }
    hs::write_file_atomically(args.back(), page, false); // a fresh path only: never replace a file or device
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "hs_write_page: " << e.what() << "\n";
    return 1;
  }
}
