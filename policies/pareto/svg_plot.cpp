#include "policies/pareto/svg_plot.hpp"

#include "sim/label_placement.hpp"

#include <algorithm>
#include <cmath>

namespace hs::pareto {
namespace {

constexpr double kWidth = 780, kHeight = 520, kLegendWidth = 210, kFont = 12;
const char* const kFrontColour = "#0072B2";
const char* const kBaselineColour = "#D55E00";

bool finite(double x, double y) {
  return std::isfinite(x) && std::isfinite(y);
}

ChartFrame make_frame(const std::string& x_label, const std::string& y_label,
                      const std::vector<FrontPoint>& front, const std::vector<LabelledPoint>& baselines) {
  std::vector<double> xs, ys;
  for (const auto& p : front) {
    xs.push_back(p.x);
    ys.push_back(p.y);
    if (p.searched) {
      xs.push_back(p.searched->first);
      ys.push_back(p.searched->second);
    }
  }
  for (const auto& p : baselines) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const auto xr = padded_range(xs, 0.08), yr = padded_range(ys, 0.08);
  const Box area{90, 44, kWidth - 90 - kLegendWidth - 20, kHeight - 44 - 64};
  return ChartFrame(area, {x_label, AxisUnit::Plain, xr.first, xr.second, 6},
                    {y_label, AxisUnit::Plain, yr.first, yr.second, 6});
}

void draw_front(SvgWriter& svg, const ChartFrame& f, const std::vector<FrontPoint>& front) {
  for (const auto& p : front)
    if (p.searched && finite(p.x, p.y) && finite(p.searched->first, p.searched->second)) {
      const double sx = f.px(p.searched->first), sy = f.py(p.searched->second);
      svg.line(sx, sy, f.px(p.x), f.py(p.y), "stroke=\"#9ab8d8\" stroke-width=\"1\"");
      svg.circle(sx, sy, 2.5, "class=\"searched\" fill=\"none\" stroke=\"#9ab8d8\"",
                 p.tooltip + ", search's estimate");
    }
  std::vector<const FrontPoint*> sorted;
  for (const auto& p : front)
    if (finite(p.x, p.y)) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->x < b->x; });
  std::vector<std::pair<double, double>> line;
  for (const auto* p : sorted)
    line.emplace_back(f.px(p->x), f.py(p->y));
  svg.polyline(line,
               std::string("stroke=\"") + kFrontColour + "\" stroke-width=\"1.5\" stroke-opacity=\"0.6\"");
  for (const auto* p : sorted)
    svg.circle(f.px(p->x), f.py(p->y), 4, std::string("class=\"member\" fill=\"") + kFrontColour + "\"",
               p->tooltip);
}

// Baselines are named first: a reader looks for them, and the plan numbers are also in the tooltips.
std::vector<std::string> draw_labels(SvgWriter& svg, const ChartFrame& f,
                                     const std::vector<FrontPoint>& front,
                                     const std::vector<LabelledPoint>& baselines) {
  std::vector<LabelRequest> requests;
  std::vector<std::string> colours;
  std::vector<Box> markers;
  for (const auto& p : baselines)
    if (finite(p.x, p.y)) {
      requests.push_back({p.label, f.px(p.x), f.py(p.y)});
      colours.push_back(kBaselineColour);
    }
  for (const auto& p : front)
    if (finite(p.x, p.y)) {
      requests.push_back({p.label, f.px(p.x), f.py(p.y)});
      colours.push_back("#1a1a1a");
    }
  for (const auto& r : requests)
    markers.push_back({r.x - 5, r.y - 5, 10, 10});
  const LabelLayout layout = place_labels(requests, f.area(), markers, kFont);
  for (const auto& l : layout.placed) {
    svg.rect(l.box, "class=\"label-box\" fill=\"white\" fill-opacity=\"0.75\"");
    svg.text(l.text_x, l.text_y, requests[l.request].text,
             "class=\"label\" fill=\"" + colours[l.request] + "\"");
  }
  std::vector<std::string> dropped;
  for (std::size_t i : layout.dropped)
    dropped.push_back(requests[i].text);
  return dropped;
}

void draw_key(SvgWriter& svg, double x, double y, std::size_t members, bool searched,
              const std::vector<std::string>& unlabelled) {
  std::vector<LegendEntry> entries = {
      {"front plans (" + std::to_string(members) + ")", kFrontColour, LegendMarker::Circle}};
  if (searched) entries.push_back({"search's estimate", "#9ab8d8", LegendMarker::Line});
  entries.push_back({"baselines", kBaselineColour, LegendMarker::Square});
  y += draw_legend(svg, x, y, entries) + 14;
  if (unlabelled.empty()) return;
  svg.text(x, y, "no room to label:", "class=\"legend\"");
  // Wrapped to the legend's width; a crowded front lists its first few (baselines first) and counts the
  // rest, whose numbers the markers' tooltips still give.
  std::vector<std::string> lines;
  std::vector<std::size_t> listed_by; // names listed up to and including each line
  for (std::size_t next = 0; next < unlabelled.size();) {
    std::string line = unlabelled[next++];
    while (next < unlabelled.size() && text_width(line + ", " + unlabelled[next], kFont) <= kLegendWidth - 10)
      line += ", " + unlabelled[next++];
    lines.push_back(line);
    listed_by.push_back(next);
  }
  constexpr std::size_t max_lines = 5;
  if (lines.size() > max_lines) {
    lines.resize(max_lines - 1);
    lines.push_back("and " + std::to_string(unlabelled.size() - listed_by[max_lines - 2]) +
                    " more (see tooltips)");
  }
  for (const auto& line : lines) {
    y += 16;
    svg.text(x, y, line, "class=\"unlabelled\"");
  }
}

} // namespace

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<FrontPoint>& front, const std::vector<LabelledPoint>& baselines) {
  const ChartFrame frame = make_frame(x_label, y_label, front, baselines);
  SvgWriter svg(kWidth, kHeight, kFont);
  svg.text(kWidth / 2, 24, title, "text-anchor=\"middle\" font-size=\"14\"");
  frame.draw(svg);
  draw_front(svg, frame, front);
  for (const auto& p : baselines)
    if (finite(p.x, p.y))
      svg.rect({frame.px(p.x) - 5, frame.py(p.y) - 5, 10, 10},
               std::string("class=\"baseline\" fill=\"none\" stroke=\"") + kBaselineColour +
                   "\" stroke-width=\"2\"",
               p.label);
  const auto unlabelled = draw_labels(svg, frame, front, baselines);
  const bool searched =
      std::any_of(front.begin(), front.end(), [](const auto& p) { return p.searched.has_value(); });
  draw_key(svg, frame.area().x + frame.area().w + 20, frame.area().y, front.size(), searched, unlabelled);
  return svg.finish();
}

} // namespace hs::pareto
