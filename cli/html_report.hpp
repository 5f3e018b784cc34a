#pragma once
// The HTML pages of a run, a Pareto front and a sweep: one self-contained file each (the data embedded as
// JSON, drawn by the page's own script as inline SVG), to open from disk in any browser.
#include <nlohmann/json.hpp>
#include <string>

namespace hs::cli {

// A run's report.json as a page: summary tables and a zoomable Gantt chart of ops and transfers. With an
// explain document (`run --explain`, format "heterosim-explain") it adds the rank table and a slider that
// replays the schedule decision by decision; the page opens at step k when its address ends in #step=k.
// Throws InputError when either document is not of its format.
std::string run_page(const nlohmann::ordered_json& report, const nlohmann::ordered_json* explain = nullptr);

// A front.json from `heterosim pareto`: one scatter per pair of objectives on the values the front is
// defined on (replayed when it was), every plan's details on hover and click.
std::string front_page(const nlohmann::ordered_json& front);

// A sweep: {"title", "parameters": [...], "metrics": [...], "rows": [{...}], "plots": [{"x", "y",
// "series", "where": {parameter: value} (optional: only those rows)}]} as a table sortable by any column and
// one line plot per entry of "plots" (a line per value of "series", or one line when it is null). Throws
// InputError naming the place of anything malformed.
std::string sweep_page(const nlohmann::json& sweep);

} // namespace hs::cli
