#pragma once
// The files `run` writes beside report.json that need more than one call: the Gantt chart's PNG copy and
// the list scheduler's explanation.
#include "policies/explain.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hs::cli {

// The Gantt chart as PNG too, when rsvg-convert is installed; otherwise (or if it fails) returns a note
// saying why there is none, since the SVG already holds the chart. Empty when the PNG was written.
std::string write_gantt_png(const std::string& svg, const std::string& png, bool force);

// explain.json when there is an explanation (returned, for the report page); otherwise one left by an
// earlier run (there only with --force) is removed, so that the directory never explains a plan other
// than its report's.
std::optional<nlohmann::ordered_json> write_explanation(const std::string& path,
                                                        const std::optional<Explanation>& explained,
                                                        const CostModel& cost, const ExplainLabels& labels,
                                                        bool force);

} // namespace hs::cli
