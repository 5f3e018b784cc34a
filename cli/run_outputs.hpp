#pragma once
// The files `run` writes beside report.json that need more than one call: the Gantt chart's PNG copy and
// the list scheduler's explanation.
#include <nlohmann/json.hpp>
#include <string>

namespace hs::cli {

// The Gantt chart as PNG too, when rsvg-convert is installed; otherwise (or if it fails) returns a note
// saying why there is none, since the SVG already holds the chart. Empty when the PNG was written.
std::string write_gantt_png(const std::string& svg, const std::string& png, bool force);

// explain.json when there is an explanation; otherwise one left by an earlier run (there only with --force)
// is removed, so that the directory never explains a plan other than its report's. Returns whether it wrote.
bool write_explanation(const std::string& path, const nlohmann::ordered_json* explain, bool force);

} // namespace hs::cli
