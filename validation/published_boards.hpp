#pragma once
// Each published board calibrated on its own kernels: the wave model refitted, from the parameters every
// GPU shares, on two thirds of one board's published GEMMs and scored on the third it did not see. What a
// user of that board gets from `run --calibration published-boards`: the board's own measured behaviour (a
// 72 W L4 holds a third of its boost clock on long GEMMs) rather than what the shared power law predicts
// for a board of its datasheet.
#include "validation/deepbench.hpp"
#include "validation/wave_fit.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct BoardFit {
  WaveParams params; // fitted on the board's training points
  // Seconds the published timings add to every call beyond the kernel (refit_wave_board): added to the
  // predictions scored here, not part of `params`.
  double timing_overhead = 0;
  double clock_share = 1; // of its boost clock the board holds on a dense GEMM, by `params`
  std::size_t trained = 0;
  ErrorStats held_out; // on its held-out points (held_out(index): every third in file order)
  std::map<std::string, ErrorStats> held_out_by_group; // linear, bmm
};

struct PublishedBoards {
  std::map<std::string, BoardFit> by_gpu; // by gpus.csv key
  ErrorStats all;                         // every board's held-out points
};

// Every board of `published` (load_published_gemms), each fitted from `shared`.
PublishedBoards fit_published_boards(const std::vector<DeepBenchPoint>& published, const WaveParams& shared);

} // namespace hs::validation
