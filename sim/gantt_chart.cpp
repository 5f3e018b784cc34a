#include "sim/gantt_chart.hpp"

#include "sim/copy_lanes.hpp"
#include "sim/critical_path.hpp"
#include "sim/svg_chart.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hs {
namespace {

constexpr double kRowHeight = 14, kBarHeight = 10, kPlotWidth = 1200, kTop = 56, kFont = 11;
const char* const kTransferColour = "#8C8C8C";

struct Rows {
  std::vector<std::string> labels;
  std::vector<bool> first_of_device; // a rule above the row separates devices
  std::map<std::pair<DeviceId, int>, int> of_stream;
  std::vector<int> of_lane; // per copy lane
};

// Per device, its streams in use, then its outgoing copy lanes.
Rows make_rows(const Report& r, const CopyLanes& lanes) {
  const Platform& p = r.cost->platform();
  Rows rows;
  rows.of_lane.resize(lanes.lanes.size());
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const std::size_t first = rows.labels.size();
    const auto& streams = r.plan->queues[d];
    for (std::size_t s = 0; s < streams.size(); ++s)
      if (!streams[s].empty()) {
        rows.of_stream[{static_cast<DeviceId>(d), static_cast<int>(s)}] =
            static_cast<int>(rows.labels.size());
        rows.labels.push_back(p.devices[d].name + " stream " + std::to_string(s));
      }
    for (std::size_t l = 0; l < lanes.lanes.size(); ++l)
      if (lanes.lanes[l].from == static_cast<DeviceId>(d)) {
        rows.of_lane[l] = static_cast<int>(rows.labels.size());
        rows.labels.push_back(p.devices[d].name + " -> " +
                              p.devices[static_cast<std::size_t>(lanes.lanes[l].to)].name + " copy " +
                              std::to_string(lanes.lanes[l].index));
      }
    for (std::size_t k = first; k < rows.labels.size(); ++k)
      rows.first_of_device.push_back(k == first);
  }
  return rows;
}

struct Layout {
  double left = 0, makespan = 1;
  double x(double t) const { return left + t / makespan * kPlotWidth; }
  static double row_top(int row) { return kTop + kRowHeight * row; }
  static double bar_top(int row) { return row_top(row) + (kRowHeight - kBarHeight) / 2; }
};

Box bar(const Layout& at, int row, double start, double end) {
  // Sub-pixel bars stay visible: a 2000-op run has ops far shorter than a pixel.
  return {at.x(start), Layout::bar_top(row), std::max(at.x(end) - at.x(start), 0.3), kBarHeight};
}

std::string span_text(double start, double end) {
  return units::format_time(start) + " to " + units::format_time(end) + " (" +
         units::format_time(end - start) + ")";
}

void draw_rows(SvgWriter& svg, const Rows& rows, const Layout& at) {
  for (std::size_t k = 0; k < rows.labels.size(); ++k) {
    const int row = static_cast<int>(k);
    svg.rect({at.left, Layout::row_top(row), kPlotWidth, kRowHeight},
             std::string("class=\"row\" fill=\"") + (k % 2 ? "#f4f4f4" : "#ffffff") + "\"");
    if (rows.first_of_device[k])
      svg.line(8, Layout::row_top(row), at.left + kPlotWidth, Layout::row_top(row), "stroke=\"#b0b0b0\"");
    svg.text(at.left - 6, Layout::row_top(row) + kRowHeight - 3.5, rows.labels[k], "text-anchor=\"end\"");
  }
}

void draw_time_axis(SvgWriter& svg, const Layout& at, double bottom) {
  const AxisTicks ticks = nice_ticks(0, at.makespan, AxisUnit::Seconds, 10);
  for (std::size_t i = 0; i < ticks.values.size(); ++i) {
    const double x = at.x(ticks.values[i]);
    svg.line(x, kTop, x, bottom, "stroke=\"#c8c8c8\" stroke-dasharray=\"2,3\"");
    svg.line(x, bottom, x, bottom + 5, "stroke=\"black\"");
    svg.text(x, bottom + 17, ticks.labels[i], "text-anchor=\"middle\"");
  }
  svg.line(at.left, bottom, at.left + kPlotWidth, bottom, "stroke=\"black\"");
  svg.text(at.left + kPlotWidth / 2, bottom + 36, "time", "text-anchor=\"middle\" font-size=\"13\"");
}

// Everything the drawing steps share.
struct Scene {
  const Report& r;
  CopyLanes lanes;
  Rows rows;
  Layout at;
  std::vector<std::string> kinds; // sorted; an op kind's colour is its position's
  std::vector<Activity> path;
  std::vector<bool> op_critical, transfer_critical;

  const std::string& colour_of(const std::string& kind) const {
    const auto k =
        static_cast<std::size_t>(std::lower_bound(kinds.begin(), kinds.end(), kind) - kinds.begin());
    return chart_palette()[k % chart_palette().size()];
  }
  int row_of(const Activity& a) const {
    const auto i = static_cast<std::size_t>(a.index);
    return a.kind == Activity::Kind::Op ? rows.of_stream.at({r.plan->device[i], r.plan->stream[i]})
                                        : rows.of_lane[static_cast<std::size_t>(lanes.lane_of[i])];
  }
};

Scene make_scene(const Report& r) {
  Scene s{r, assign_copy_lanes(r.execution), {}, {}, {}, {}, {}, {}};
  s.rows = make_rows(r, s.lanes);
  std::set<std::string> kinds;
  for (const auto& op : r.cost->graph().ops)
    kinds.insert(op.kind);
  s.kinds.assign(kinds.begin(), kinds.end());
  double label_width = 0;
  for (const auto& l : s.rows.labels)
    label_width = std::max(label_width, text_width(l, kFont));
  s.at.left = label_width + 20;
  s.at.makespan = r.execution.makespan > 0 ? r.execution.makespan : 1;
  s.path = critical_path(r.execution, *r.plan, r.cost->graph());
  s.op_critical.assign(r.execution.ops.size(), false);
  s.transfer_critical.assign(r.execution.transfers.size(), false);
  for (const Activity& a : s.path)
    (a.kind == Activity::Kind::Op ? s.op_critical : s.transfer_critical)[static_cast<std::size_t>(a.index)] =
        true;
  return s;
}

// Whether black text reads better than white on this "#RRGGBB" colour (Rec. 709 luma above one half).
bool is_light(const std::string& colour) {
  if (colour.size() != 7 || colour[0] != '#') return false;
  const auto channel = [&colour](std::size_t at) {
    return std::stoi(colour.substr(at, 2), nullptr, 16) / 255.0;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5) > 0.5;
}

// One bar: outlined in black on the critical path; a hairline of white between wide neighbours of one
// colour, left off narrow bars, which it would wash out; the name inside when it fits.
void draw_bar(SvgWriter& svg, const Box& b, const std::string& cls, const std::string& fill, bool critical,
              const std::string& name, const std::string& tooltip) {
  std::string attributes = "class=\"" + cls + (critical ? " critical" : "") + "\" fill=\"" + fill + "\"";
  if (critical)
    attributes += " stroke=\"black\" stroke-width=\"0.8\"";
  else if (b.w >= 3)
    attributes += " stroke=\"white\" stroke-width=\"0.5\"";
  svg.rect(b, attributes, tooltip);
  if (b.w >= text_width(name, 9) + 6)
    svg.text(b.x + 3, b.y + b.h - 2, name,
             std::string("font-size=\"9\" class=\"bar-name\" fill=\"") +
                 (is_light(fill) ? "black" : "white") + "\"");
}

void draw_activities(SvgWriter& svg, const Scene& s) {
  const Graph& g = s.r.cost->graph();
  const Execution& e = s.r.execution;
  for (std::size_t o = 0; o < e.ops.size(); ++o) {
    const Activity a{Activity::Kind::Op, static_cast<int>(o)};
    draw_bar(svg, bar(s.at, s.row_of(a), e.ops[o].start, e.ops[o].end), "op", s.colour_of(g.ops[o].kind),
             s.op_critical[o], g.ops[o].name,
             g.ops[o].name + " (" + g.ops[o].kind + ") " + span_text(e.ops[o].start, e.ops[o].end));
  }
  for (std::size_t i = 0; i < e.transfers.size(); ++i) {
    const TransferRun& t = e.transfers[i];
    const Activity a{Activity::Kind::Transfer, static_cast<int>(i)};
    draw_bar(svg, bar(s.at, s.row_of(a), t.start, t.end), "transfer", kTransferColour, s.transfer_critical[i],
             g.tensor(t.tensor).name,
             g.tensor(t.tensor).name + " " + units::format_bytes(t.bytes) + " " + span_text(t.start, t.end));
  }
}

// The path's links, from each activity's end to the next one's start.
void draw_critical_links(SvgWriter& svg, const Scene& s) {
  const Execution& e = s.r.execution;
  const auto mid = [&s](const Activity& a) { return Layout::row_top(s.row_of(a)) + kRowHeight / 2; };
  for (std::size_t k = 1; k < s.path.size(); ++k) {
    const Activity& a = s.path[k - 1];
    const Activity& b = s.path[k];
    const auto ai = static_cast<std::size_t>(a.index), bi = static_cast<std::size_t>(b.index);
    const double a_end = a.kind == Activity::Kind::Op ? e.ops[ai].end : e.transfers[ai].end;
    const double b_start = b.kind == Activity::Kind::Op ? e.ops[bi].start : e.transfers[bi].start;
    svg.line(s.at.x(a_end), mid(a), s.at.x(b_start), mid(b),
             "class=\"critical-link\" stroke=\"black\" stroke-width=\"1\"");
  }
}

} // namespace

std::string gantt_svg(const Report& r) {
  const Scene s = make_scene(r);
  const Execution& e = r.execution;
  const double bottom = Layout::row_top(static_cast<int>(s.rows.labels.size()));
  std::vector<LegendEntry> legend;
  for (const auto& k : s.kinds)
    legend.push_back({k, s.colour_of(k), LegendMarker::Bar});
  legend.push_back({"transfer", kTransferColour, LegendMarker::Bar});
  legend.push_back({"critical path", "black", LegendMarker::Outline});
  double legend_width = 0;
  for (const auto& l : legend)
    legend_width = std::max(legend_width, text_width(l.label, kFont) + 30);
  const double height = std::max(bottom + 56, kTop + 18.0 * static_cast<double>(legend.size()) + 20);
  SvgWriter svg(s.at.left + kPlotWidth + 20 + legend_width, height, kFont);
  svg.text(s.at.left, 22,
           r.info.workload + " on " + r.info.platform + ", " + r.info.policy + ": makespan " +
               units::format_time(e.makespan) + " (" + engine_label(e.engine) + ")",
           "font-size=\"15\"");
  svg.text(s.at.left, 42,
           std::to_string(e.ops.size()) + " ops, " + std::to_string(e.transfers.size()) +
               " transfers; a row per stream in use and per copy lane; critical path outlined and joined",
           "fill=\"#505050\"");
  draw_rows(svg, s.rows, s.at);
  draw_time_axis(svg, s.at, bottom);
  draw_activities(svg, s);
  draw_critical_links(svg, s);
  draw_legend(svg, s.at.left + kPlotWidth + 16, kTop, legend);
  return svg.finish();
}

} // namespace hs
