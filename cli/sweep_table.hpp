#pragma once
// Joins a sweep's finished points into one tidy table: a row per point, a column per axis and per metric.
#include "cli/sweep_spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs::cli {

struct SweepTable {
  std::vector<std::string> columns; // "point", the axes, "outcome", the metrics (then their ratios)
  struct Row {
    std::size_t index;
    std::vector<std::string> labels;            // per axis
    std::string outcome;                        // "ok", or what stopped the run ("over capacity", ...)
    std::vector<std::optional<double>> metrics; // the spec's metrics, then their ratios to the baseline
  };
  std::vector<Row> rows;
};

// Reads every point's outcome and report; throws std::runtime_error naming the unfinished points.
SweepTable collect_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                         const std::string& out);

// RFC 4180 CSV; numbers with 10 significant digits, an empty cell where a point has no value.
std::string sweep_csv(const SweepTable& table);

// The series of one plot: per value of the series axis (in axis order), the mean y at each x over the
// values of the other axes (those the plot's `where` does not fix).
struct PlotLine {
  std::string name;
  std::vector<std::pair<double, double>> points; // x ascending
};
std::vector<PlotLine> plot_lines(const SweepSpec& spec, const SweepTable& table, const SweepPlot& plot);

} // namespace hs::cli
