#include "sim/label_placement.hpp"

#include <optional>

namespace hs {
namespace {

bool inside(const Box& inner, const Box& outer) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w &&
         inner.y + inner.h <= outer.y + outer.h;
}

bool meets_any(const Box& b, const std::vector<Box>& others) {
  for (const Box& o : others)
    if (boxes_overlap(b, o)) return true;
  return false;
}

// The candidate boxes around (x, y) for a w x h label: offsets in units of the gap from the point.
std::vector<Box> candidates(double x, double y, double w, double h) {
  std::vector<Box> out;
  for (double gap : {6.0, 14.0}) {
    const Box right{x + gap, y - h / 2, w, h}, left{x - gap - w, y - h / 2, w, h};
    const Box above{x - w / 2, y - gap - h, w, h}, below{x - w / 2, y + gap, w, h};
    const Box up_right{x + gap * 0.7, y - gap * 0.7 - h, w, h},
        down_right{x + gap * 0.7, y + gap * 0.7, w, h};
    const Box up_left{x - gap * 0.7 - w, y - gap * 0.7 - h, w, h},
        down_left{x - gap * 0.7 - w, y + gap * 0.7, w, h};
    for (const Box& b : {right, left, above, below, up_right, down_right, up_left, down_left})
      out.push_back(b);
  }
  return out;
}

} // namespace

LabelLayout place_labels(const std::vector<LabelRequest>& labels, const Box& bounds,
                         const std::vector<Box>& markers, double font_size) {
  LabelLayout layout;
  std::vector<Box> taken;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double w = text_width(labels[i].text, font_size) + 2, h = font_size * 1.2 + 2;
    std::optional<Box> chosen, fallback;
    for (const Box& b : candidates(labels[i].x, labels[i].y, w, h)) {
      if (!inside(b, bounds) || meets_any(b, taken)) continue;
      if (!meets_any(b, markers)) {
        chosen = b;
        break;
      }
      if (!fallback) fallback = b;
    }
    if (!chosen) chosen = fallback;
    if (!chosen) {
      layout.dropped.push_back(i);
      continue;
    }
    taken.push_back(*chosen);
    // The box is padded by a pixel all round; the baseline sits a fifth of the font above its bottom.
    layout.placed.push_back({i, *chosen, chosen->x + 1, chosen->y + chosen->h - 1 - font_size * 0.25});
  }
  return layout;
}

} // namespace hs
