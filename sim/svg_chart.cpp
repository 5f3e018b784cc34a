#include "sim/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hs {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      // XML 1.0 forbids most control characters even escaped; tab and newline read as spaces.
      if (static_cast<unsigned char>(c) < 0x20)
        out += ' ';
      else
        out += c;
    }
  }
  return out;
}

std::string svg_number(double v) {
  if (!std::isfinite(v)) v = 0;
  if (std::abs(v) < 0.005) v = 0; // "-0.00" would make equal charts differ in bytes
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

const std::vector<std::string>& chart_palette() {
  static const std::vector<std::string> colours = {
      "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#332288",
      "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499", "#CC6677"};
  return colours;
}

bool boxes_overlap(const Box& a, const Box& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

double text_width(std::string_view text, double font_size) {
  double units = 0;
  for (char c : text) // UTF-8 continuation bytes add no width
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
      units += (c >= 'A' && c <= 'Z') || c == 'm' ? 0.75 : 0.6;
  return units * font_size;
}

SvgWriter::SvgWriter(double width, double height, double font_size) {
  out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(width) + "\" height=\"" +
         svg_number(height) + "\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
         "\" font-family=\"sans-serif\" font-size=\"" + svg_number(font_size) + "\">\n" +
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

void SvgWriter::rect(const Box& b, const std::string& attributes, const std::string& tooltip) {
  out_ += "<rect x=\"" + svg_number(b.x) + "\" y=\"" + svg_number(b.y) + "\" width=\"" + svg_number(b.w) +
          "\" height=\"" + svg_number(b.h) + "\" " + attributes;
  out_ += tooltip.empty() ? "/>\n" : "><title>" + xml_escape(tooltip) + "</title></rect>\n";
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const std::string& attributes) {
  out_ += "<line x1=\"" + svg_number(x1) + "\" y1=\"" + svg_number(y1) + "\" x2=\"" + svg_number(x2) +
          "\" y2=\"" + svg_number(y2) + "\" " + attributes + "/>\n";
}

void SvgWriter::circle(double cx, double cy, double r, const std::string& attributes,
                       const std::string& tooltip) {
  out_ += "<circle cx=\"" + svg_number(cx) + "\" cy=\"" + svg_number(cy) + "\" r=\"" + svg_number(r) + "\" " +
          attributes;
  out_ += tooltip.empty() ? "/>\n" : "><title>" + xml_escape(tooltip) + "</title></circle>\n";
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& points,
                         const std::string& attributes) {
  if (points.size() < 2) return;
  out_ += "<polyline fill=\"none\" points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i > 0) out_ += ' ';
    out_ += svg_number(points[i].first);
    out_ += ',';
    out_ += svg_number(points[i].second);
  }
  out_ += "\" " + attributes + "/>\n";
}

void SvgWriter::text(double x, double y, std::string_view content, const std::string& attributes) {
  out_ += "<text x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\"" +
          (attributes.empty() ? "" : " " + attributes) + ">" + xml_escape(content) + "</text>\n";
}

std::string SvgWriter::finish() {
  return out_ + "</svg>\n";
}

std::pair<double, double> padded_range(const std::vector<double>& values, double pad) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (!(lo <= hi)) return {0.0, 1.0};
  const double width = hi > lo ? hi - lo : std::max(std::abs(lo) * 0.1, 1e-12);
  return {lo - width * pad, hi + width * pad};
}

namespace {

// An axis must span something for the mapping to pixels to exist; non-finite bounds get [0, 1].
void widen_if_empty(AxisSpec& axis) {
  if (!std::isfinite(axis.lo) || !std::isfinite(axis.hi)) {
    axis.lo = 0;
    axis.hi = 1;
  }
  if (axis.hi > axis.lo) return;
  const double half = axis.lo != 0 ? std::abs(axis.lo) * 0.1 : 1.0;
  axis.lo -= half;
  axis.hi += half;
}

} // namespace

ChartFrame::ChartFrame(Box area, AxisSpec x, AxisSpec y) : area_(area), x_(std::move(x)), y_(std::move(y)) {
  widen_if_empty(x_);
  widen_if_empty(y_);
  x_ticks_ = nice_ticks(x_.lo, x_.hi, x_.unit, x_.target_ticks);
  y_ticks_ = nice_ticks(y_.lo, y_.hi, y_.unit, y_.target_ticks);
}

double ChartFrame::px(double x) const {
  return area_.x + (x - x_.lo) / (x_.hi - x_.lo) * area_.w;
}

double ChartFrame::py(double y) const {
  return area_.y + area_.h - (y - y_.lo) / (y_.hi - y_.lo) * area_.h;
}

void ChartFrame::draw(SvgWriter& svg) const {
  const double bottom = area_.y + area_.h;
  for (std::size_t i = 0; i < x_ticks_.values.size(); ++i) {
    const double x = px(x_ticks_.values[i]);
    svg.line(x, area_.y, x, bottom, "stroke=\"#e0e0e0\"");
    svg.line(x, bottom, x, bottom + 5, "stroke=\"black\"");
    svg.text(x, bottom + 18, x_ticks_.labels[i], "text-anchor=\"middle\" class=\"tick\"");
  }
  for (std::size_t i = 0; i < y_ticks_.values.size(); ++i) {
    const double y = py(y_ticks_.values[i]);
    svg.line(area_.x, y, area_.x + area_.w, y, "stroke=\"#e0e0e0\"");
    svg.line(area_.x - 5, y, area_.x, y, "stroke=\"black\"");
    svg.text(area_.x - 8, y + 4, y_ticks_.labels[i], "text-anchor=\"end\" class=\"tick\"");
  }
  svg.rect(area_, "fill=\"none\" stroke=\"black\"");
  svg.text(area_.x + area_.w / 2, bottom + 40, x_.title, "text-anchor=\"middle\" font-size=\"13\"");
  const double mid = area_.y + area_.h / 2;
  svg.text(0, 0, y_.title,
           "text-anchor=\"middle\" font-size=\"13\" transform=\"translate(" + svg_number(area_.x - 62) + "," +
               svg_number(mid) + ") rotate(-90)\"");
}

double draw_legend(SvgWriter& svg, double x, double y, const std::vector<LegendEntry>& entries) {
  constexpr double line_height = 18;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    const double mid = y + line_height * static_cast<double>(i) + line_height / 2;
    const std::string fill = "fill=\"" + e.colour + "\"";
    switch (e.marker) {
    case LegendMarker::Circle:
      svg.circle(x + 6, mid, 4, fill);
      break;
    case LegendMarker::Square:
      svg.rect({x + 1, mid - 5, 10, 10}, "fill=\"none\" stroke=\"" + e.colour + "\" stroke-width=\"2\"");
      break;
    case LegendMarker::Bar:
      svg.rect({x, mid - 5, 12, 10}, fill);
      break;
    case LegendMarker::Outline:
      svg.rect({x, mid - 5, 12, 10}, "fill=\"white\" stroke=\"" + e.colour + "\" stroke-width=\"2\"");
      break;
    case LegendMarker::Line:
      svg.line(x, mid, x + 12, mid, "stroke=\"" + e.colour + "\" stroke-width=\"2\"");
      break;
    }
    svg.text(x + 18, mid + 4, e.label, "class=\"legend\"");
  }
  return line_height * static_cast<double>(entries.size());
}

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<ChartSeries>& series, const LineChartOptions& options) {
  double legend_width = 0;
  std::vector<double> xs, ys;
  for (const auto& s : series) {
    legend_width = std::max(legend_width, text_width(s.name, 12) + 30);
    for (const auto& [x, y] : s.points) {
      xs.push_back(x);
      ys.push_back(y);
    }
  }
  const auto [x_lo, x_hi] = padded_range(xs);
  const auto [y_lo, y_hi] = padded_range(ys);
  const Box area{90, 44, std::max(200.0, options.width - 90 - 24 - legend_width), options.height - 44 - 64};
  const ChartFrame frame(area, {x_label, options.x_unit, x_lo, x_hi, 6},
                         {y_label, options.y_unit, y_lo, y_hi, 6});
  SvgWriter svg(area.x + area.w + 24 + legend_width, options.height);
  svg.text(area.x + area.w / 2, 26, title, "text-anchor=\"middle\" font-size=\"15\"");
  frame.draw(svg);
  std::vector<LegendEntry> legend;
  const auto& palette = chart_palette();
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::string& colour = palette[k % palette.size()];
    std::vector<std::pair<double, double>> sorted;
    for (const auto& p : series[k].points)
      if (std::isfinite(p.first) && std::isfinite(p.second)) sorted.push_back(p);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<double, double>> pixels;
    for (const auto& p : sorted)
      pixels.emplace_back(frame.px(p.first), frame.py(p.second));
    svg.polyline(pixels, "stroke=\"" + colour + "\" stroke-width=\"2\" class=\"series\"");
    for (const auto& p : pixels)
      svg.circle(p.first, p.second, 3.5, "fill=\"" + colour + "\" class=\"point\"", series[k].name);
    legend.push_back({series[k].name, colour, LegendMarker::Circle});
  }
  draw_legend(svg, area.x + area.w + 16, area.y, legend);
  return svg.finish();
}

} // namespace hs
