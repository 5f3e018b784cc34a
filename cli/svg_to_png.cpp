#include "cli/svg_to_png.hpp"

#include "cli/child_process.hpp"

#include <stdexcept>

namespace hs::cli {

std::string svg_file_to_png(const std::string& converter, const std::string& svg_path) {
  const Captured c = run_captured({converter, "--format=png", svg_path});
  if (c.status != 0 || c.output.empty()) throw std::runtime_error(converter + " failed on " + svg_path);
  return c.output;
}

} // namespace hs::cli
