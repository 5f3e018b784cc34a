#include "cli/sweep_output.hpp"

#include "cli/html_report.hpp"
#include "cli/platform_patch.hpp"
#include "cli/sweep_runner.hpp"
#include "cli/sweep_table.hpp"
#include "sim/json_input.hpp"
#include "sim/svg_chart.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

bool internal_failure(const std::string& outcome) {
  return outcome.rfind("crashed", 0) == 0 || outcome.rfind("failed", 0) == 0;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Seconds and bytes get their units on the axis; other figures are plain numbers.
AxisUnit unit_of(const std::string& metric) {
  if (ends_with(metric, "_s")) return AxisUnit::Seconds;
  if (ends_with(metric, "_bytes") || metric == "bytes_moved") return AxisUnit::Bytes; // link_bytes too
  return AxisUnit::Plain;
}

struct AxisScale {
  AxisUnit unit = AxisUnit::Plain;
  std::string suffix; // for the label, where the tick labels carry no unit
};

// A metric's unit from its name; an axis of quantities ("16GBps") in SI units of its family.
AxisScale scale_of(const SweepSpec& spec, const std::string& x) {
  const SweepAxis* a = spec.find_axis(x);
  if (!a) return {unit_of(x), ""};
  if (a->kind != SweepAxis::Kind::PlatformField || !a->values.front().is_string()) return {};
  using Q = units::Quantity;
  switch (unit_family(a->values.front().get<std::string>()).value_or(Q::Plain)) {
  case Q::Time:
    return {AxisUnit::Seconds, ""};
  case Q::Bytes:
    return {AxisUnit::Bytes, ""};
  case Q::Bandwidth:
    return {AxisUnit::Plain, " (B/s)"};
  case Q::Flops:
    return {AxisUnit::Plain, " (flop/s)"};
  case Q::Power:
    return {AxisUnit::Plain, " (W)"};
  case Q::Energy:
    return {AxisUnit::Plain, " (J)"};
  case Q::Plain:
    return {};
  }
  return {};
}

std::string file_stem(const std::string& name) {
  std::string s = name;
  if (!s.empty() && s.front() == '/') s.erase(0, 1);
  std::replace_if(
      s.begin(), s.end(),
      [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-'; }, '_');
  return s;
}

void write_plots(const SweepSpec& spec, const SweepTable& table, const std::string& out,
                 std::vector<std::string>& written) {
  for (const auto& plot : spec.plots) {
    std::vector<ChartSeries> series;
    for (auto& line : plot_lines(spec, table, plot))
      series.push_back({line.name, std::move(line.points)});
    const AxisScale x = scale_of(spec, plot.x);
    LineChartOptions options;
    options.x_unit = x.unit;
    options.y_unit = unit_of(plot.y);
    // Appended piece by piece: GCC 12 warns (-Wrestrict) on "-" + std::string temporaries.
    std::string title = spec.name;
    title.append(": ").append(plot.y).append(" against ").append(plot.x);
    std::string stem = file_stem(plot.y);
    stem.append("-vs-").append(file_stem(plot.x));
    if (!plot.series.empty()) {
      title.append(", by ").append(plot.series);
      stem.append("-by-").append(file_stem(plot.series));
    }
    for (const auto& w : plot.where) {
      title.append(", ").append(w.first).append(" = ").append(w.second);
      stem.append("-").append(file_stem(w.first)).append("-").append(file_stem(w.second));
    }
    if (spec.axes.size() > 1 + (plot.series.empty() ? 0U : 1U) + plot.where.size())
      title.append(" (mean over the other axes)");
    const std::string file = (fs::path(out) / "plots" / (stem + ".svg")).string();
    fs::create_directories(fs::path(file).parent_path());
    write_file_atomically(file, line_chart_svg(title, plot.x + x.suffix, plot.y, series, options), true);
    written.push_back(file);
  }
}

Json page_value(const SweepAxis& axis, const std::string& label) {
  const auto at = std::find(axis.labels.begin(), axis.labels.end(), label) - axis.labels.begin();
  return axis.numeric() ? Json(axis.numbers[static_cast<std::size_t>(at)]) : Json(label);
}

// The page's data: numeric axes as numbers (so they plot), the others as their labels.
Json page_data(const SweepSpec& spec, const SweepTable& table) {
  Json page{
      {"title", spec.name}, {"metrics", spec.metrics}, {"rows", Json::array()}, {"plots", Json::array()}};
  Json parameters = Json::array();
  for (const auto& a : spec.axes)
    parameters.push_back(a.name);
  parameters.push_back("outcome");
  page["parameters"] = parameters;
  for (const auto& r : table.rows) {
    Json row;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      row[spec.axes[a].name] = page_value(spec.axes[a], r.labels[a]);
    }
    row["outcome"] = r.outcome;
    for (std::size_t m = 0; m < r.metrics.size(); ++m)
      row[table.columns[spec.axes.size() + 2 + m]] = r.metrics[m] ? Json(*r.metrics[m]) : Json(nullptr);
    page["rows"].push_back(row);
  }
  for (const auto& p : spec.plots) {
    Json plot{{"x", p.x}, {"y", p.y}, {"series", p.series.empty() ? Json(nullptr) : Json(p.series)}};
    for (const auto& w : p.where)
      plot["where"][w.first] = page_value(*spec.find_axis(w.first), w.second);
    page["plots"].push_back(plot);
  }
  return page;
}

} // namespace

int write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points, const std::string& out,
                        bool quiet) {
  const SweepTable table = collect_sweep(spec, points, out);
  std::vector<std::string> written = {(fs::path(out) / "sweep.csv").string()};
  write_file_atomically(written[0], sweep_csv(table), true);
  write_plots(spec, table, out, written);
  written.push_back((fs::path(out) / "sweep.html").string());
  write_file_atomically(written.back(), sweep_page(page_data(spec, table)), true);
  int not_ok = 0, exit_code = 0;
  for (const auto& r : table.rows) {
    if (r.outcome == "ok") continue;
    ++not_ok;
    if (internal_failure(r.outcome)) exit_code = 5;
    if (!quiet)
      std::cerr << "heterosim: point " << fs::path(point_directory(out, spec, r.index)).filename().string()
                << ": " << r.outcome << " (see its run.log)\n";
  }
  if (!quiet) {
    std::cout << table.rows.size() << " points"
              << (not_ok ? " (" + std::to_string(not_ok) + " without results)" : std::string()) << "; wrote";
    for (std::size_t i = 0; i < written.size(); ++i)
      std::cout << (i ? ", " : " ") << written[i];
    std::cout << "\n";
  }
  return exit_code;
}

} // namespace hs::cli
