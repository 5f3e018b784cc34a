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

// A fit of one board's `points` that moves only what describes the board rather than the library's
// kernels: its memory efficiency and its sustained clock (through watts_per_tflops, against the board's
// power limit and fp32 peak). The tile parameters stay `from`'s, so they carry over to precisions and shapes
// the board was not measured in. `timing_overhead` is fitted beside them: seconds the measurement added
// to every call (a framework's dispatch inside the timed region, as NeuSight's timings of one PyTorch call
// each have), which belong to the timing, not to the board, and which `params` leave out (the device's
// launch stays `from`'s; a simulated run's host time is its issue model's).
struct BoardRefit {
  WaveParams params;
  double timing_overhead = 0; // seconds
};
BoardRefit refit_wave_board(const std::vector<WavePoint>& points, const WaveParams& from);

// Mean absolute percentage error of `p` on `points`.
double wave_mape(const std::vector<WavePoint>& points, const WaveParams& p);

} // namespace hs::validation
