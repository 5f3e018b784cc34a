#pragma once
// The GPU model HeteroSim ships (models/calibration-deepbench-gpu.json and learned-deepbench.json): the wave
// model fitted on DeepBench's fp32 GEMMs and a sample of the published GEMMs of newer GPUs, the trees trained
// on DeepBench's fp32 GEMMs and convolutions (forward and both gradients) and on the published boards' GEMMs
// over it, with the held-out errors validate measured.
#include "validation/deepbench.hpp"
#include "validation/learned_fit.hpp"
#include "validation/learned_published.hpp"
#include "validation/published_boards.hpp"
#include "validation/published_kernels.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

struct ShippedGpuModelInputs {
  const std::vector<DeepBenchPoint>& gemm;
  const std::vector<DeepBenchPoint>& conv;
  const std::vector<DeepBenchPoint>& conv_backward; // the gradients' passes (may be empty)
  const std::vector<DeepBenchPoint>& published;     // empty: DeepBench alone
  const std::map<std::string, GpuDatasheet>& sheets;
  const LearnedValidation& learned;            // leave one GPU out
  const ErrorStats& wave_held_out;             // DeepBench's wave model, leave one GPU out
  const PublishedKernelCheck* published_check; // its wave_logo gives each published board's held-out error
  // The files as a reader of the committed ones should see their paths.
  std::string deepbench_path, datasheets_path;
};

struct ShippedGpuModelFiles {
  std::string learned_model; // learned-deepbench.json
  std::string calibration;   // calibration-deepbench-gpu.json, which names the learned model's file
  // Each published board's own fit (empty without published GEMMs), and calibration-published-boards.json:
  // the calibration above with an entry per board for devices of that board's model.
  PublishedBoards boards;
  std::string boards_calibration;
  // The trees on the published boards, held out (empty without published GEMMs).
  std::optional<LearnedPublished> learned_published;
};

ShippedGpuModelFiles fit_shipped_gpu_model(const ShippedGpuModelInputs& in);

// The boards' own fits and the trees' figures on them, for the report's published section.
void add_board_fits(PublishedKernelCheck& check, const ShippedGpuModelFiles& files);

} // namespace hs::validation
