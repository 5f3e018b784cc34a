#include "cli/run_outputs.hpp"

#include "cli/child_process.hpp"
#include "cli/svg_to_png.hpp"
#include "sim/json_input.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace hs::cli {

std::string write_gantt_png(const std::string& svg, const std::string& png, bool force) {
  const auto converter = find_on_path("rsvg-convert");
  if (!converter) {
    // An old PNG beside a new SVG would show another run; --force has already allowed replacing it.
    std::error_code ec;
    const bool removed = force && std::filesystem::remove(png, ec);
    return png + " not written: rsvg-convert is not on PATH (Debian package librsvg2-bin); " + svg +
           " has the same chart" + (removed ? " (the old PNG was removed)" : "");
  }
  std::string bytes;
  try {
    bytes = svg_file_to_png(*converter, svg);
  } catch (const std::runtime_error& e) {
    return png + " not written: " + e.what();
  }
  write_file_atomically(png, bytes, force);
  return "";
}

bool write_explanation(const std::string& path, const nlohmann::ordered_json* explain, bool force) {
  if (explain) {
    write_file_atomically(path, explain->dump(1) + "\n", force);
    return true;
  }
  if (path_exists(path)) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::cerr << "heterosim: note: removed " << path << ", which explained an earlier plan\n";
  }
  return false;
}

} // namespace hs::cli
