#pragma once
// Plug-in modules: shared objects that the CLI loads at start, whose static initialisers register what they
// hold (gnn-placement, on libtorch: gnn/) in the same registries as the objects linked into the program. The
// CLI itself then builds and runs without libtorch, and the main job does not compile gnn/ (README, "Build
// times"). A module is read from
//   $HETEROSIM_PLUGINS (a directory; empty: load none), else
//   <program's directory>/plugins (the build tree), else
//   <program's directory>/../<libdir>/heterosim/plugins (an install).
// Each module `X.so` has a stamp file `X.so.abi` beside it: a hash of the headers both sides were compiled
// against. A module whose stamp is not this program's (built before a header changed) is skipped with a
// warning instead of loaded, because its types' layouts may no longer be the program's.
#include <string>
#include <vector>

namespace hs::cli {

// The hash of the headers this program was compiled against (generated at build time, cmake/abi_stamp.cmake).
const char* plugin_abi();

// The first plug-in directory that exists, as listed above; empty when there is none.
std::string plugin_directory();

// Loads every module in the first plug-in directory that exists, in name order; returns the loaded paths.
// A module that cannot be loaded is reported on stderr and skipped: the rest of the CLI works without it.
std::vector<std::string> load_plugins();

} // namespace hs::cli
