#pragma once
// Where HeteroSim finds the files it ships (the preset platforms, the validation measurements), found at
// run time, never fixed at build time, so a build tree, an installed copy and a moved install all work:
//   1. $HETEROSIM_DATA, when set;
//   2. beside the running program: <dir>/share/heterosim (a build tree: CMake links it to the sources) or
//      <dir>/../share/heterosim (an install: bin/ and share/ under one prefix).
#include <string>

namespace hs {

// The directory holding platforms/ and validation/; throws InputError naming HETEROSIM_DATA when none of
// the places above has one.
std::string data_directory();

} // namespace hs
