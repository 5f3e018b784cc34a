#pragma once
// One objective pair of a front as SVG, drawn with the core chart toolkit (sim/svg_chart.hpp): the
// front's members at the values the front is defined on (the replay's, once replayed) joined in x order,
// each with a faint marker at the search's estimate joined to it, the baselines as squares, and labels
// placed without overlaps (sim/label_placement.hpp); labels with no free place are listed in the legend.
#include "sim/svg_chart.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hs::pareto {

struct LabelledPoint {
  std::string label;
  double x = 0.0, y = 0.0;
};

struct FrontPoint {
  std::string label;   // drawn beside the marker: the plan's number
  std::string tooltip; // what hovering shows: number and origin
  double x = 0.0, y = 0.0;
  std::optional<std::pair<double, double>> searched; // the search's estimate, when it was replayed
};

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<FrontPoint>& front, const std::vector<LabelledPoint>& baselines);

} // namespace hs::pareto
