#pragma once
// Greedy placement of point labels on a chart: each label, in the order given, takes the first of eight
// positions around its point (right, left, above, below, then the diagonals, then the same again twice
// as far) whose box stays inside the plot, meets no label already placed and covers no marker; failing
// that, the first that meets no label; failing that it is dropped, and the chart lists it instead. Give
// the labels that matter most first.
#include "sim/svg_chart.hpp"

#include <string>
#include <vector>

namespace hs {

struct LabelRequest {
  std::string text;
  double x = 0, y = 0; // the point it names, in pixels
};

struct PlacedLabel {
  std::size_t request = 0;
  Box box;           // the text's box, padded by a pixel
  double text_x = 0; // where the text's baseline starts (text-anchor start)
  double text_y = 0;
};

struct LabelLayout {
  std::vector<PlacedLabel> placed;
  std::vector<std::size_t> dropped; // indices of requests that found no free place
};

// `markers` are boxes a label should avoid (other points); `bounds` is the area labels must stay in.
LabelLayout place_labels(const std::vector<LabelRequest>& labels, const Box& bounds,
                         const std::vector<Box>& markers, double font_size);

} // namespace hs
