#pragma once
// A small scatter plot written as SVG by hand (no plotting dependency): the front's points joined in
// x order, and the baselines as labelled red squares.
#include <string>
#include <vector>

namespace hs::pareto {

struct LabelledPoint {
  std::string label;
  double x = 0.0, y = 0.0;
};

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<LabelledPoint>& front, const std::vector<LabelledPoint>& baselines);

} // namespace hs::pareto
