#pragma once
// Published kernel timings of GPUs DeepBench never measured: NeuSight's fp32 GEMMs (ASPLOS 2025; torch
// nn.Linear and torch.bmm under PyTorch 2.1, CUDA 12.1 and cuDNN 8.9.2, on eight NVIDIA GPUs from Pascal to
// Hopper; validation/measurements/neusight/SOURCE.md). They answer what DeepBench cannot: how the shipped GPU
// model, fitted on 2015-2018 GPUs, holds on an A100, an H100 and an L4, kernel by kernel.
#include "sim/calibration.hpp"
#include "validation/csv_table.hpp"
#include "validation/deepbench.hpp"
#include "validation/learned_published.hpp"
#include "validation/published_boards.hpp"
#include "validation/published_memory_bound.hpp"
#include "validation/published_wave.hpp"
#include "validation/shipped_gpu_check.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

// The gpus.csv sheet whose model is row `r`'s gpu_model; InputError naming the file, line and column when
// none is.
const GpuDatasheet& sheet_of_row(const std::map<std::string, GpuDatasheet>& sheets, const CsvTable& t,
                                 std::size_t r);

// The folder's gemm.csv, each row as a DeepBench-style point of the GPU its gpus.csv names (`gpu` is that
// sheet's key, `label` starts with the op: "linear ..." or "bmm ..."). nn.Linear(n, k) on a (b, m, n) input
// is one GEMM of b*m rows, reduction n and k columns; bmm of (b, m, n) by (b, n, k) is b GEMMs of m x k with
// reduction n. InputError naming the file and line for a GPU gpus.csv lacks, an unknown op or a
// non-positive dimension or time.
std::vector<DeepBenchPoint> load_published_gemms(const std::string& dir);

// One GPU's sheet as a one-device platform, as `run` would cost a device described by those figures: its
// compute units and clocks, and the software the timings were taken with (CUDA 12.1, cuDNN 8.9), no driver.
std::string datasheet_platform_json(const GpuDatasheet& sheet);

struct PublishedKernelCheck {
  std::string dir;
  std::string shown_dir;                         // as a reader of the committed files should see it
  std::map<std::string, std::string> models;     // gpus.csv key -> the model name its driver reports
  std::map<std::string, ShippedGpuCheck> by_gpu; // by gpus.csv key
  ErrorStats all;                                // every point of every GPU
  // The wave model with the published GPUs in its fit, each GPU's chip left out (when DeepBench is given).
  std::optional<PublishedWaveLogo> wave_logo;
  // Each board's own wave fit, held out on a third of its points (when the shipped model is fitted).
  PublishedBoards boards;
  // The trees on these boards' GEMMs, held out (when the shipped model is fitted).
  std::optional<LearnedPublished> learned;
  // The memory-bound kernels' shares of the bandwidth, each GPU left out (when the folder has
  // memory_bound.csv).
  std::optional<PublishedMemoryBound> memory_bound;
  // Why the shipped model was not checked, empty when it was: the committed model did not load (one of an
  // older format, before `validate` has written the new one).
  std::string shipped_unavailable;
};

// The shipped model on `points` (load_published_gemms of `dir`), each GPU on its own sheet's platform
// (`dir`'s gpus.csv); without one (null), the GPUs' figures alone. Not held out: the shipped wave fit
// includes a sample of these points (wave_fit_sample); the held-out figure is wave_logo's.
PublishedKernelCheck check_published_kernels(const std::string& dir,
                                             const std::vector<DeepBenchPoint>& points,
                                             const Calibration* shipped);

} // namespace hs::validation
