#include "sim/data_directory.hpp"

#include "sim/error.hpp"

#include <cstdlib>
#include <filesystem>

namespace hs {

std::string data_directory() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("HETEROSIM_DATA"); env && *env) return env;
  std::error_code ec;
  const fs::path program = fs::read_symlink("/proc/self/exe", ec);
  std::string tried;
  if (!ec) {
    for (const fs::path& candidate : {program.parent_path() / "share" / "heterosim",
                                      program.parent_path().parent_path() / "share" / "heterosim"}) {
      if (fs::is_directory(candidate / "platforms", ec)) return candidate.lexically_normal().string();
      tried += (tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
    }
  }
  throw InputError("HETEROSIM_DATA", "",
                   "no data directory (platforms/, validation/) beside this program (looked in " + tried +
                       "); set HETEROSIM_DATA to <install prefix>/share/heterosim");
}

} // namespace hs
