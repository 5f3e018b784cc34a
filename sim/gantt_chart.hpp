#pragma once
// A Gantt chart of a run as SVG: one row per device stream that ran an op and one per copy lane
// (sim/copy_lanes.hpp), grouped by device; ops as bars coloured by op kind, transfers as grey bars on
// their lanes, the critical path (sim/critical_path.hpp) outlined in black and joined by a line, and a
// time axis with nice ticks. Every op and transfer is one <rect> with a tooltip, and a bar narrower than
// a pixel is still drawn a fraction of a pixel wide, so a 2000-op run stays one readable page (about 1 MB).
//
// Classes in the SVG, for tools and tests: "row" (one background band per row), "op" and "transfer"
// (one per activity, "critical" added on the path), "critical-link" (the line joining the path).
#include "sim/report.hpp"

#include <string>

namespace hs {

std::string gantt_svg(const Report& r);

} // namespace hs
