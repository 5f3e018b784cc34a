#include "serving/serving_timeline.hpp"

#include "sim/svg_chart.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <set>

namespace hs::serving {

void TimelineRecorder::request(const RequestTrace& r) {
  if (r.arrival < o_.from) before_ = std::max(before_, r.id + 1);
  if (r.arrival < o_.from || o_.requests == 0) return;
  if (kept_.size() == o_.requests && r.id > kept_.rbegin()->first) return;
  kept_.emplace(r.id, r);
  if (kept_.size() > o_.requests) kept_.erase(std::prev(kept_.end()));
}

// The window is the ids from the one after the last arrival before `from`, all seen once contiguous.
bool TimelineRecorder::complete() const {
  if (kept_.size() < o_.requests) return false;
  const std::uint64_t first = kept_.begin()->first;
  return first == before_ && kept_.rbegin()->first - first + 1 == kept_.size();
}

void TimelineRecorder::span(const DeviceSpan& s) {
  if (s.end <= o_.from || complete()) return;
  if (spans_.size() < o_.max_spans)
    spans_.push_back(s);
  else
    ++left_out_;
}

std::vector<RequestTrace> TimelineRecorder::requests() const {
  std::vector<RequestTrace> out;
  for (const auto& [id, r] : kept_)
    out.push_back(r);
  return out;
}

namespace {

std::pair<double, double> window_of(const std::vector<RequestTrace>& rs) {
  if (rs.empty()) return {0.0, 1.0};
  double lo = rs.front().arrival, hi = lo;
  for (const auto& r : rs)
    hi = std::max({hi, r.end, r.arrival});
  return {lo, hi > lo ? hi : lo + 1e-9};
}

} // namespace

std::vector<DeviceSpan> TimelineRecorder::spans() const {
  const auto [lo, hi] = window_of(requests());
  std::vector<DeviceSpan> out;
  for (const auto& s : spans_)
    if (s.end > lo && s.start < hi) out.push_back(s);
  return out;
}

namespace {

constexpr double kRow = 7, kBar = 5, kDeviceRow = 16, kPlotWidth = 1100, kTop = 60, kFont = 11;
const char* const kTransfer = "#8C8C8C";

struct Frame {
  double left, lo, hi;
  double x(double t) const { return left + (std::clamp(t, lo, hi) - lo) / (hi - lo) * kPlotWidth; }
  Box bar(double top, double from, double to, double h) const {
    return {x(from), top, std::max(x(to) - x(from), 0.3), h};
  }
};

const std::string& colour(std::size_t tenant) {
  return chart_palette()[tenant % chart_palette().size()];
}

std::string fill(std::size_t tenant, const char* cls, const char* extra = "") {
  return std::string("class=\"") + cls + "\" fill=\"" + colour(tenant) + "\"" + extra;
}

// A row per request, grouped by tenant in the order listed; returns the y below the last row.
double draw_requests(SvgWriter& svg, const Frame& f, const std::vector<RequestTrace>& rs,
                     const std::vector<std::string>& tenants) {
  double y = kTop;
  for (std::size_t t = 0; t < tenants.size(); ++t) {
    bool first = true;
    for (const auto& r : rs) {
      if (r.tenant != t) continue;
      if (first) {
        svg.line(8, y, f.left + kPlotWidth, y, "stroke=\"#b0b0b0\"");
        svg.text(f.left - 6, y + 10, tenants[t], "class=\"tenant\" text-anchor=\"end\"");
        first = false;
      }
      const double top = y + (kRow - kBar) / 2;
      const std::string id = "request " + std::to_string(r.id) + " (" + tenants[t] + ") ";
      y += kRow;
      if (r.end < 0) {
        svg.rect({f.x(r.arrival), top - 1, 1.5, kBar + 2}, "class=\"dropped\" fill=\"#D55E00\"",
                 id + "dropped");
        continue;
      }
      svg.rect(f.bar(top, r.arrival, r.start, kBar), fill(t, "queueing", " fill-opacity=\"0.3\""),
               id + "queued " + units::format_time(r.start - r.arrival));
      svg.rect(f.bar(top, r.start, r.end, kBar), fill(t, "request"),
               id + "served " + units::format_time(r.end - r.start) + ", latency " +
                   units::format_time(r.end - r.arrival));
      if (r.decode_start >= 0) {
        svg.rect(f.bar(top, r.prefill_end, r.kv_arrived, kBar),
                 std::string("class=\"kv-transfer\" fill=\"") + kTransfer + "\"",
                 id + "KV cache in flight " + units::format_time(r.kv_arrived - r.prefill_end));
        svg.rect(f.bar(top, r.kv_arrived, r.decode_start, kBar),
                 "class=\"decode-queueing\" fill=\"white\" fill-opacity=\"0.6\"",
                 id + "waited for the decode batch " + units::format_time(r.decode_start - r.kv_arrived));
      }
    }
  }
  return y;
}

void draw_devices(SvgWriter& svg, const Frame& f, const std::vector<DeviceSpan>& spans,
                  const std::set<std::size_t>& used, const std::vector<std::string>& tenants,
                  const std::vector<std::string>& devices, double y) {
  static const char* kinds[] = {"batch", "iteration", "prefill"};
  for (const std::size_t d : used) {
    svg.line(8, y, f.left + kPlotWidth, y, "stroke=\"#b0b0b0\"");
    svg.text(f.left - 6, y + 11, devices[d], "text-anchor=\"end\"");
    for (const auto& s : spans) {
      if (s.device != d) continue;
      const Box b = f.bar(y + 2, s.start, s.end, kDeviceRow - 4);
      svg.rect(b, fill(s.tenant, "batch", " stroke=\"white\" stroke-width=\"0.3\""),
               tenants[s.tenant] + " " + kinds[static_cast<int>(s.kind)] + " of " +
                   std::to_string(s.requests) + " on " + devices[d] + ", " + units::format_time(s.start) +
                   " to " + units::format_time(s.end));
      const std::string n = std::to_string(s.requests);
      if (b.w >= text_width(n, 8) + 3)
        svg.text(b.x + 1.5, b.y + b.h - 3, n, "font-size=\"8\" fill=\"white\"");
    }
    y += kDeviceRow;
  }
}

} // namespace

std::string timeline_svg(const TimelineRecorder& t, const std::vector<std::string>& tenants,
                         const std::vector<std::string>& devices, const std::string& title) {
  const std::vector<RequestTrace> rs = t.requests();
  const std::vector<DeviceSpan> spans = t.spans();
  const auto [lo, hi] = window_of(rs);
  double label = 0;
  for (const auto& names : {tenants, devices})
    for (const auto& n : names)
      label = std::max(label, text_width(n, kFont));
  const Frame f{label + 20, lo, hi};
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < tenants.size(); ++i)
    legend.push_back({tenants[i], colour(i), LegendMarker::Bar});
  std::set<std::size_t> used;
  for (const auto& s : spans)
    used.insert(s.device);
  bool split = false;
  for (const auto& r : rs)
    split = split || r.decode_start >= 0;
  if (split) legend.push_back({"KV cache in flight", kTransfer, LegendMarker::Bar});
  const double rows = kRow * static_cast<double>(rs.size()),
               devs = kDeviceRow * static_cast<double>(used.size());
  const double bottom = kTop + rows + 8 + devs;
  SvgWriter svg(f.left + kPlotWidth + 190,
                std::max(bottom + 50, kTop + 18.0 * static_cast<double>(legend.size()) + 20), kFont);
  svg.text(f.left, 22, title, "font-size=\"15\"");
  svg.text(f.left, 42,
           std::to_string(rs.size()) + " requests from " + units::format_time(t.options().from) +
               ": queueing pale, service solid; below, each device's batches (size inside)" +
               (t.spans_left_out() ? "; " + std::to_string(t.spans_left_out()) + " batches not drawn" : ""),
           "fill=\"#505050\"");
  const AxisTicks ticks = nice_ticks(lo, hi, AxisUnit::Seconds, 10);
  for (std::size_t i = 0; i < ticks.values.size(); ++i) {
    const double x = f.x(ticks.values[i]);
    svg.line(x, kTop, x, bottom, "stroke=\"#c8c8c8\" stroke-dasharray=\"2,3\"");
    svg.text(x, bottom + 17, ticks.labels[i], "text-anchor=\"middle\"");
  }
  draw_devices(svg, f, spans, used, tenants, devices, draw_requests(svg, f, rs, tenants) + 8);
  svg.line(f.left, bottom, f.left + kPlotWidth, bottom, "stroke=\"black\"");
  svg.text(f.left + kPlotWidth / 2, bottom + 36, "simulated time", "text-anchor=\"middle\" font-size=\"13\"");
  draw_legend(svg, f.left + kPlotWidth + 16, kTop, legend);
  return svg.finish();
}

} // namespace hs::serving
