#include "cli/sweep_table.hpp"

#include "cli/sweep_metrics.hpp"
#include "cli/sweep_runner.hpp"
#include "sim/csv.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace hs::cli {
namespace {

namespace fs = std::filesystem;

std::string number_cell(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::size_t column_of(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// Each metric over the baseline point's: the point with the same labels but the baseline axis's value.
void add_ratios(const SweepSpec& spec, SweepTable& t) {
  if (spec.baseline_axis.empty()) return;
  const std::size_t axis = spec.axis_index(spec.baseline_axis);
  std::map<std::vector<std::string>, std::size_t> row_of;
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    row_of[t.rows[r].labels] = r;
  const std::size_t metrics = spec.metrics.size();
  for (const auto& m : spec.metrics)
    t.columns.push_back(m + "_ratio");
  for (auto& row : t.rows) {
    auto key = row.labels;
    key[axis] = spec.baseline_value;
    const auto& base = t.rows[row_of.at(key)].metrics;
    for (std::size_t m = 0; m < metrics; ++m) {
      const auto v = row.metrics[m], b = base[m];
      row.metrics.push_back(v && b && *b != 0 ? std::optional<double>(*v / *b) : std::nullopt);
    }
  }
}

} // namespace

SweepTable collect_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const std::string& out) {
  SweepTable t;
  t.columns.push_back("point");
  for (const auto& a : spec.axes)
    t.columns.push_back(a.name);
  t.columns.push_back("outcome");
  t.columns.insert(t.columns.end(), spec.metrics.begin(), spec.metrics.end());
  std::vector<std::size_t> missing;
  for (const auto& p : points) {
    if (!point_finished(out, spec, p.index)) {
      missing.push_back(p.index);
      continue;
    }
    const fs::path dir = point_directory(out, spec, p.index);
    SweepTable::Row row{p.index, p.labels, read_json_file((dir / "outcome.json").string()).at("outcome"), {}};
    Json report;
    if (row.outcome == "ok") report = read_json_file((dir / "report.json").string());
    for (const auto& m : spec.metrics)
      row.metrics.push_back(report.is_null() ? std::nullopt : sweep_metric(report, m));
    t.rows.push_back(std::move(row));
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i)
      list += (i ? ", " : "") + fs::path(point_directory(out, spec, missing[i])).filename().string();
    throw std::runtime_error(std::to_string(missing.size()) + " of " + std::to_string(points.size()) +
                             " points of " + out + " are not finished (" + list +
                             (missing.size() > 10 ? ", ..." : "") + "); run the sweep (or its shards) first");
  }
  add_ratios(spec, t);
  return t;
}

std::string sweep_csv(const SweepTable& t) {
  // Appends rather than concatenating temporaries: GCC 12 warns (-Wrestrict) on "," + std::string.
  std::string s;
  const auto cell = [&s](const std::string& text, bool first) {
    if (!first) s.push_back(',');
    s.append(text);
  };
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    cell(csv_field(t.columns[c]), c == 0);
  s.push_back('\n');
  for (const auto& r : t.rows) {
    cell(std::to_string(r.index), true);
    for (const auto& l : r.labels)
      cell(csv_field(l), false);
    cell(csv_field(r.outcome), false);
    for (const auto& m : r.metrics)
      cell(m ? number_cell(*m) : std::string(), false);
    s.push_back('\n');
  }
  return s;
}

std::vector<PlotLine> plot_lines(const SweepSpec& spec, const SweepTable& t, const SweepPlot& plot) {
  const std::size_t x_axis = spec.axis_index(plot.x), y = column_of(spec.metrics, plot.y);
  const std::size_t series_axis = spec.axis_index(plot.series);
  const std::vector<std::string> series_names =
      plot.series.empty() ? std::vector<std::string>{plot.y} : spec.axes[series_axis].labels;
  // Per series and x: the sum and count of y, for the mean over the other axes.
  std::vector<std::map<double, std::pair<double, int>>> sums(series_names.size());
  const auto selected = [&](const SweepTable::Row& r) {
    for (const auto& w : plot.where)
      if (r.labels[spec.axis_index(w.first)] != w.second) return false;
    return true;
  };
  for (const auto& r : t.rows) {
    if (!selected(r)) continue;
    std::optional<double> x;
    if (x_axis < spec.axes.size()) {
      const auto& a = spec.axes[x_axis];
      x = a.numbers[column_of(a.labels, r.labels[x_axis])];
    } else {
      x = r.metrics[column_of(spec.metrics, plot.x)];
    }
    if (!x || !r.metrics[y]) continue;
    const std::size_t s = plot.series.empty() ? 0 : column_of(series_names, r.labels[series_axis]);
    auto& cell = sums[s][*x];
    cell.first += *r.metrics[y];
    ++cell.second;
  }
  std::vector<PlotLine> lines;
  for (std::size_t s = 0; s < series_names.size(); ++s) {
    PlotLine line{series_names[s], {}};
    for (const auto& [x, sum] : sums[s])
      line.points.emplace_back(x, sum.first / sum.second);
    if (!line.points.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace hs::cli
