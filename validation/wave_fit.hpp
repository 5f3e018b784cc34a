#pragma once
// Fits the wave model's shared parameters (sim/wave_model.hpp) to measured kernel times by Nelder-Mead
// on the mean absolute relative error (the MAPE the report shows). The parameters are the same for every
// GPU, so a fit on some GPUs predicts another from its datasheet figures alone.
#include "sim/wave_model.hpp"

#include <vector>

namespace hs::validation {

struct WavePoint {
  GemmShape shape;
  WaveDevice device;
  double seconds = 0; // measured
};

WaveParams fit_wave(const std::vector<WavePoint>& points);
// A fit of `points` that starts from `from` (a fit on more GPUs) and takes fewer steps: how the GPUs of
// one architecture depart from the parameters every GPU shares.
WaveParams refit_wave(const std::vector<WavePoint>& points, const WaveParams& from);

// Mean absolute percentage error of `p` on `points`.
double wave_mape(const std::vector<WavePoint>& points, const WaveParams& p);

} // namespace hs::validation
