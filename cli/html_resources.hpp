#pragma once
// The pages' stylesheet and scripts, kept as files under cli/web/ and compiled in by cmake/embed_web.cmake.
namespace hs::cli::web {

extern const char* const page_css;
extern const char* const common_js; // formatting, tables, tooltip, the ready marker
extern const char* const plot_js;   // axes and scales shared by the scatter and line plots
extern const char* const gantt_js;  // the zoomable Gantt chart
extern const char* const run_page_js;
extern const char* const explain_js; // rank table and decision replay of `run --explain`
extern const char* const front_page_js;
extern const char* const sweep_page_js;

} // namespace hs::cli::web
