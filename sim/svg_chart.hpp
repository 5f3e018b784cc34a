#pragma once
// A small SVG chart toolkit written by hand (no plotting dependency): a writer that escapes text and
// prints every number in one fixed format (so charts are byte-identical run to run), a frame with nice
// ticks and axis titles, a legend, a colour-blind-safe palette and a line chart of named series.
#include "sim/chart_ticks.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hs {

// Text for SVG character data or attribute values: & < > " ' escaped, control characters dropped.
std::string xml_escape(std::string_view text);
// A coordinate as every chart prints it: two decimals, never "-0.00".
std::string svg_number(double v);

// The Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008) without its black, then Paul Tol's
// "muted" scheme: 16 colours distinguishable under common colour-vision deficiencies, fixed order.
const std::vector<std::string>& chart_palette();

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
};
bool boxes_overlap(const Box& a, const Box& b);
// A generous estimate of a sans-serif string's width: the charts reserve room and avoid collisions with it.
double text_width(std::string_view text, double font_size);

class SvgWriter {
public:
  SvgWriter(double width, double height, double font_size = 12);
  void rect(const Box& b, const std::string& attributes, const std::string& tooltip = "");
  void line(double x1, double y1, double x2, double y2, const std::string& attributes);
  void circle(double cx, double cy, double r, const std::string& attributes, const std::string& tooltip = "");
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& attributes);
  void text(double x, double y, std::string_view content, const std::string& attributes = "");
  std::string finish();

private:
  std::string out_;
};

struct AxisSpec {
  std::string title;
  AxisUnit unit = AxisUnit::Plain;
  double lo = 0, hi = 1; // the drawn range; ticks are the nice values inside it
  int target_ticks = 6;
};

// [lo, hi] of the finite values, widened by `pad` of its width on each side (a point on the frame's edge
// is hard to see).
std::pair<double, double> padded_range(const std::vector<double>& values, double pad = 0.05);

// Maps data to pixels inside `area` and draws the axes: frame, grid lines, tick labels, titles.
class ChartFrame {
public:
  ChartFrame(Box area, AxisSpec x, AxisSpec y);
  double px(double x) const;
  double py(double y) const;
  const Box& area() const { return area_; }
  void draw(SvgWriter& svg) const;

private:
  Box area_;
  AxisSpec x_, y_;
  AxisTicks x_ticks_, y_ticks_;
};

enum class LegendMarker { Circle, Square, Bar, Line, Outline };
struct LegendEntry {
  std::string label;
  std::string colour;
  LegendMarker marker = LegendMarker::Circle;
};
// Entries one per line from (x, y), the top of the first line; returns the height used.
double draw_legend(SvgWriter& svg, double x, double y, const std::vector<LegendEntry>& entries);

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

struct LineChartOptions {
  AxisUnit x_unit = AxisUnit::Plain;
  AxisUnit y_unit = AxisUnit::Plain;
  double width = 760, height = 480;
};

// Each series' points as markers joined by a line in x order, coloured from chart_palette() in order,
// with a legend naming them. Non-finite points are left out.
std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<ChartSeries>& series, const LineChartOptions& options = {});

} // namespace hs
