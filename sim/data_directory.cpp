#include "sim/data_directory.hpp"

#include "sim/error.hpp"

#include <cstdlib>
#include <filesystem>

namespace hs {

namespace {

struct BesideProgram {
  std::string found; // empty: none
  std::string tried;
};

// The program does not move while it runs, so the search (a readlink and up to two stats, about 13 us,
// which gnn-placement would otherwise pay on every plan) is done once.
const BesideProgram& beside_program() {
  static const BesideProgram result = [] {
    namespace fs = std::filesystem;
    BesideProgram r;
    std::error_code ec;
    const fs::path program = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return r;
    for (const fs::path& candidate : {program.parent_path() / "share" / "heterosim",
                                      program.parent_path().parent_path() / "share" / "heterosim"}) {
      if (fs::is_directory(candidate / "platforms", ec)) {
        r.found = candidate.lexically_normal().string();
        return r;
      }
      r.tried += (r.tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
    }
    return r;
  }();
  return result;
}

} // namespace

std::string data_directory() {
  if (const char* env = std::getenv("HETEROSIM_DATA"); env && *env) return env;
  const BesideProgram& b = beside_program();
  if (!b.found.empty()) return b.found;
  throw InputError("HETEROSIM_DATA", "",
                   "no data directory (platforms/, validation/) beside this program (looked in " + b.tried +
                       "); set HETEROSIM_DATA to <install prefix>/share/heterosim");
}

} // namespace hs
