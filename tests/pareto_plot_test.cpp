// The front's SVG plot: one marker per member at its replayed values, the search's estimates joined to
// them, nice ticks, and labels that never overlap (read back from the SVG text written).
#include "policies/pareto/svg_plot.hpp"
#include "svg_text.hpp"

#include <doctest/doctest.h>

using namespace hs;

namespace {

Box box_of(const std::string& rect) {
  return {test::number_attribute(rect, "x"), test::number_attribute(rect, "y"),
          test::number_attribute(rect, "width"), test::number_attribute(rect, "height")};
}

} // namespace

TEST_CASE("Pareto plot: a marker per member, the search's estimates beside them, no overlapping labels") {
  std::vector<pareto::FrontPoint> front;
  for (int i = 0; i < 9; ++i) { // a tight cluster near (1, 1) and a spread tail
    const double x = i < 6 ? 1.0 + 0.002 * i : 1.0 + 0.1 * i, y = i < 6 ? 1.0 - 0.001 * i : 1.0 - 0.05 * i;
    front.push_back({std::to_string(i), "plan " + std::to_string(i) + " (nsga2)", x, y,
                     std::make_pair(x * 1.01, y * 0.99)});
  }
  const std::vector<pareto::LabelledPoint> baselines = {
      {"heft", 1.0, 1.0}, {"fastest-device", 1.003, 1.002}, {"a&b <c>", 1.9, 0.5}};
  const std::string svg = pareto::scatter_svg("t", "latency / heft's", "energy / heft's", front, baselines);

  CHECK(test::count(svg, "class=\"member\"") == 9);
  CHECK(test::count(svg, "class=\"searched\"") == 9);
  CHECK(test::count(svg, "class=\"baseline\"") == 3);
  CHECK(svg.find("a&amp;b &lt;c&gt;") != std::string::npos);
  CHECK(svg.find(">heft</text>") != std::string::npos); // baselines are labelled first
  CHECK(test::count(svg, "<polyline") == 1);            // the front, joined in x order

  std::vector<Box> labels;
  for (const auto& rect : test::elements(svg, "rect"))
    if (test::attribute(rect, "class") == "label-box") labels.push_back(box_of(rect));
  const int unlabelled = test::count(svg, "class=\"unlabelled\"");
  CHECK(labels.size() >= 6);
  // Every label is either placed or listed: the cluster cannot hold all twelve.
  if (labels.size() < 12) CHECK(unlabelled >= 1);
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK_FALSE(boxes_overlap(labels[i], labels[j]));
    }
  // Ticks are nice numbers, not the range cut in four.
  CHECK(svg.find(">1.0</text>") != std::string::npos);
  CHECK(svg == pareto::scatter_svg("t", "latency / heft's", "energy / heft's", front, baselines));
}
