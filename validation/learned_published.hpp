#pragma once
// The learned model on the published boards' GEMMs (published_kernels.hpp), held out two ways: each board
// with two thirds of its own GEMMs among the training points, scored on the other third, which is how the
// shipped trees cost a board they were trained on (LearnedModel::boards); and, as a reference, each chip left
// out of the training altogether and the trees applied to it anyway, which is why they cost no other board.
// Predictions are the kernel's time plus the board's fitted overhead per call, as the timings include it.
#include "validation/learned_fit.hpp"
#include "validation/published_boards.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct LearnedPublished {
  std::map<std::string, ErrorStats> seen_by_gpu; // by gpus.csv key, its held-out third
  std::map<std::string, std::map<std::string, ErrorStats>> seen_by_group; // linear, bmm
  ErrorStats seen_all;
  std::map<std::string, ErrorStats> chip_out_by_gpu; // every point of the board, its chip out of the training
  ErrorStats chip_out_all;
};

// `deepbench`: the DeepBench points the shipped trees train on; `shared`: the shipped wave model;
// `wave_by_chip`: the wave model fitted without each chip (PublishedWaveLogo::params_by_chip), the base of
// that chip's fold.
LearnedPublished evaluate_learned_published(const std::vector<const DeepBenchPoint*>& deepbench,
                                            const std::vector<DeepBenchPoint>& published,
                                            const PublishedBoards& boards, const WaveParams& shared,
                                            const std::map<std::string, WaveParams>& wave_by_chip);

// The overhead per call of each board's own fit, by gpus.csv key.
std::map<std::string, double> timing_overheads(const PublishedBoards& boards);

} // namespace hs::validation
