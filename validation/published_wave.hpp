#pragma once
// Whether the newer GPUs' published GEMMs make the wave model generalise better: each published GPU
// predicted by the wave model fitted on DeepBench's fp32 GEMMs and the other published GPUs, with every
// board of the same chip (architecture and SM count: both A100s, DeepBench's P100 and T4 beside
// NeuSight's) left out of the fit.
#include "validation/deepbench.hpp"
#include "validation/wave_fit.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

// At most this many of each published GPU's points take part in a fit (evenly spaced in file order), so
// that every GPU weighs about as much as one of DeepBench's (160 fp32 GEMMs each).
inline constexpr std::size_t kFitPointsPerPublishedGpu = 200;

// The points of every fit: DeepBench's fp32 GEMMs and a spaced sample of each published GPU's.
std::vector<const DeepBenchPoint*> wave_fit_sample(const std::vector<DeepBenchPoint>& deepbench_gemm,
                                                   const std::vector<DeepBenchPoint>& published);

// A published point's op, the first word of its label: "linear" or "bmm".
std::string published_op(const DeepBenchPoint& p);

// A GPU's chip as the folds tell chips apart: its architecture and SM count ("Ampere/108").
std::string chip_of(const DeepBenchPoint& p);

struct PublishedWaveLogo {
  std::map<std::string, ErrorStats> by_gpu; // every point of the GPU, its chip out of the fit
  std::map<std::string, std::map<std::string, ErrorStats>> by_gpu_group; // linear, bmm
  ErrorStats all;
  std::map<std::string, WaveParams> params_by_chip; // each fold's fit, by chip_of
};

PublishedWaveLogo published_wave_leave_one_chip_out(const std::vector<DeepBenchPoint>& deepbench_gemm,
                                                    const std::vector<DeepBenchPoint>& published);

} // namespace hs::validation
