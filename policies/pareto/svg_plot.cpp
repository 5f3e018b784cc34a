#include "policies/pareto/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hs::pareto {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

} // namespace

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<LabelledPoint>& front,
                        const std::vector<LabelledPoint>& baselines) {
  const double W = 640, H = 480, left = 80, right = 160, top = 40, bottom = 60;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto* set : {&front, &baselines})
    for (const auto& p : *set) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      x0 = std::min(x0, p.x);
      x1 = std::max(x1, p.x);
      y0 = std::min(y0, p.y);
      y1 = std::max(y1, p.y);
    }
  if (!(x0 <= x1)) {
    x0 = 0;
    x1 = 1;
    y0 = 0;
    y1 = 1;
  }
  const double padx = (x1 - x0 > 0 ? x1 - x0 : std::max(1e-9, std::abs(x0))) * 0.05;
  const double pady = (y1 - y0 > 0 ? y1 - y0 : std::max(1e-9, std::abs(y0))) * 0.05;
  x0 -= padx;
  x1 += padx;
  y0 -= pady;
  y1 += pady;
  const auto sx = [&](double x) { return left + (x - x0) / (x1 - x0) * (W - left - right); };
  const auto sy = [&](double y) { return H - bottom - (y - y0) / (y1 - y0) * (H - top - bottom); };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(W) + "\" height=\"" + num(H) +
                  "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
                  "fill=\"white\"/>\n";
  s += "<text x=\"" + num(W / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" + escape(title) +
       "</text>\n";
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(W - left - right) +
       "\" height=\"" + num(H - top - bottom) + "\" fill=\"none\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;
    s += "<text x=\"" + num(sx(xv)) + "\" y=\"" + num(H - bottom + 16) + "\" text-anchor=\"middle\">" +
         tick(xv) + "</text>\n";
    s += "<text x=\"" + num(left - 6) + "\" y=\"" + num(sy(yv) + 4) + "\" text-anchor=\"end\">" + tick(yv) +
         "</text>\n";
  }
  s += "<text x=\"" + num((left + W - right) / 2) + "\" y=\"" + num(H - 16) + "\" text-anchor=\"middle\">" +
       escape(x_label) + "</text>\n";
  s += "<text transform=\"translate(18," + num((top + H - bottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + escape(y_label) + "</text>\n";
  std::vector<LabelledPoint> sorted = front;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  for (const auto& p : sorted)
    if (std::isfinite(p.x) && std::isfinite(p.y))
      s += "<circle cx=\"" + num(sx(p.x)) + "\" cy=\"" + num(sy(p.y)) +
           "\" r=\"3.5\" fill=\"#1f77b4\" fill-opacity=\"0.7\"><title>" + escape(p.label) +
           "</title></circle>\n";
  for (const auto& p : baselines) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    s += "<rect x=\"" + num(sx(p.x) - 5) + "\" y=\"" + num(sy(p.y) - 5) +
         "\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n";
    s += "<text x=\"" + num(sx(p.x) + 8) + "\" y=\"" + num(sy(p.y) - 6) + "\" fill=\"#d62728\">" +
         escape(p.label) + "</text>\n";
  }
  const double lx = W - right + 12;
  s += "<circle cx=\"" + num(lx) + "\" cy=\"" + num(top + 10) + "\" r=\"3.5\" fill=\"#1f77b4\"/><text x=\"" +
       num(lx + 10) + "\" y=\"" + num(top + 14) + "\">front plans (" + std::to_string(front.size()) +
       ")</text>\n";
  s += "<rect x=\"" + num(lx - 5) + "\" y=\"" + num(top + 25) +
       "\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"" +
       num(lx + 10) + "\" y=\"" + num(top + 34) + "\">baselines</text>\n";
  s += "</svg>\n";
  return s;
}

} // namespace hs::pareto
