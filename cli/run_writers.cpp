// The formats `heterosim run` writes, each one registration; the registry and the order they run in.
#include "cli/run_writers.hpp"

#include "cli/html_report.hpp"
#include "cli/run_outputs.hpp"
#include "sim/gantt_chart.hpp"
#include "sim/json_input.hpp"

#include <algorithm>

namespace hs::cli {

Registry<RunWriter>& run_writers() {
  static Registry<RunWriter> registry("run output writer");
  return registry;
}

std::vector<const RunWriter*> run_writers_for(bool report_only, bool explain) {
  std::vector<const RunWriter*> out;
  for (const RunWriter& w : run_writers().all())
    if (w.when == RunWriter::When::always || (w.when == RunWriter::When::full_run && !report_only) ||
        (w.when == RunWriter::When::with_explain && explain && !report_only))
      out.push_back(&w);
  std::stable_sort(out.begin(), out.end(),
                   [](const RunWriter* a, const RunWriter* b) { return a->stage < b->stage; });
  return out;
}

namespace {

// A writer that writes text made from the run, atomically.
template <class Make> auto text_writer(Make make) {
  return [make](const RunArtifacts& a, const std::string& path) {
    write_file_atomically(path, make(a), a.force);
    return Written{};
  };
}

} // namespace

HS_REGISTER_RUN_WRITER(report_json,
                       {"report", "report.json", "every figure of the run (format heterosim-report)", 0,
                        RunWriter::When::always,
                        text_writer([](const RunArtifacts& a) { return a.report_json.dump(1) + "\n"; })})
HS_REGISTER_RUN_WRITER(timeline_csv, {"timeline", "timeline.csv", "start and end of every op and transfer", 1,
                                      RunWriter::When::full_run, text_writer([](const RunArtifacts& a) {
                                        return timeline_csv(a.report);
                                      })})
HS_REGISTER_RUN_WRITER(chrome_trace,
                       {"trace", "trace.json", "the timeline for Perfetto (Chrome trace format)", 1,
                        RunWriter::When::full_run,
                        text_writer([](const RunArtifacts& a) { return chrome_trace(a.report); })})
HS_REGISTER_RUN_WRITER(explain,
                       {"explain", "explain.json", "the list scheduler's ranks and decisions", 1,
                        RunWriter::When::with_explain, [](const RunArtifacts& a, const std::string& path) {
                          // Without an explanation, run has said why on stderr already.
                          return Written{write_explanation(path, a.explain_json, a.force), ""};
                        }})
HS_REGISTER_RUN_WRITER(gantt_svg, {"gantt", "gantt.svg", "a Gantt chart of devices, streams and copy lanes",
                                   1, RunWriter::When::full_run,
                                   text_writer([](const RunArtifacts& a) { return gantt_svg(a.report); })})
HS_REGISTER_RUN_WRITER(report_html,
                       {"page", "report.html", "one page with the figures, charts and explanation", 1,
                        RunWriter::When::full_run, text_writer([](const RunArtifacts& a) {
                          return run_page(a.report_json, a.explain_json);
                        })})
// Reads gantt.svg, so it comes after it.
HS_REGISTER_RUN_WRITER(gantt_png,
                       {"gantt-png", "gantt.png", "the Gantt chart as PNG (needs rsvg-convert)", 2,
                        RunWriter::When::full_run, [](const RunArtifacts& a, const std::string& path) {
                          const std::string svg = a.dir + "/" + run_writers().get("gantt").file;
                          std::string note = write_gantt_png(svg, path, a.force);
                          return Written{note.empty(), note};
                        }})

} // namespace hs::cli
