#include "cli/plugins.hpp"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

std::string read_stamp(const fs::path& file) {
  std::ifstream in(file);
  std::string stamp;
  in >> stamp;
  return stamp;
}

} // namespace

std::string plugin_directory() {
  if (const char* env = std::getenv("HETEROSIM_PLUGINS")) return env;
  std::error_code ec;
  const fs::path program = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const fs::path& candidate :
       {program.parent_path() / "plugins", program.parent_path().parent_path() / HS_PLUGIN_INSTALL_DIR})
    if (fs::is_directory(candidate, ec)) return candidate.lexically_normal().string();
  return "";
}

std::vector<std::string> load_plugins() {
  std::vector<std::string> loaded;
  const std::string dir = plugin_directory();
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return loaded;
  std::vector<fs::path> modules;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".so") modules.push_back(entry.path());
  std::sort(modules.begin(), modules.end()); // a fixed order: registrations do not depend on the file system
  for (const fs::path& module : modules) {
    fs::path stamp_file = module;
    stamp_file += ".abi";
    if (const std::string stamp = read_stamp(stamp_file); stamp != plugin_abi()) {
      std::cerr << "heterosim: warning: plug-in " << module.string() << " skipped: "
                << (stamp.empty() ? "no stamp file " + stamp_file.string()
                                  : "built against other headers than this program")
                << " (rebuild it: cmake --build build --target " << module.stem().string() << "_plugin)\n";
      continue;
    }
    // RTLD_NOW: a symbol the program lacks is reported here, not in the middle of a run.
    if (!dlopen(module.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      std::cerr << "heterosim: warning: plug-in " << module.string() << " not loaded: " << dlerror() << "\n";
      continue;
    }
    loaded.push_back(module.string());
  }
  return loaded;
}

} // namespace hs::cli
