#pragma once
// PNG copies of the SVG charts, made by rsvg-convert (Debian: librsvg2-bin) when it is installed; the
// SVG is the product, the PNG a convenience for viewers that show no SVG.
#include <string>

namespace hs::cli {

// Runs `converter` (rsvg-convert) on the SVG file and returns the PNG bytes it printed; throws
// std::runtime_error naming the file when it cannot run or fails.
std::string svg_file_to_png(const std::string& converter, const std::string& svg_path);

} // namespace hs::cli
