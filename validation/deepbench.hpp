#pragma once
// DeepBench's published GPU GEMM and convolution timings as a second source of truth: predicted from each
// GPU's datasheet figures alone, then after calibrating the roofline on part of them.
#include "sim/wave_model.hpp"
#include "validation/error_stats.hpp"
#include "validation/roofline_fit.hpp"
#include "validation/wave_fit.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct GpuDatasheet {
  std::string gpu;
  double fp32_flops = 0.0;
  double fp16_tensor_flops = 0.0; // 0 when the GPU has no tensor cores
  double bandwidth = 0.0;         // bytes/s
  std::string model;              // the product name a driver reports, which calibrations match
  ComputeUnits units;             // SMs or compute units, boost clock and board power
  std::string source;
};

std::map<std::string, GpuDatasheet> load_gpu_datasheets(const std::string& csv_path);

struct DeepBenchPoint {
  std::string gpu, precision, label;
  int index = 0; // position within its (gpu, precision) block, in sheet order
  FitPoint point;
  GemmShape shape;   // a convolution as its implicit GEMM
  WaveDevice device; // the GPU's datasheet figures for this precision
};

// A sheet's figures as the wave model sees the GPU, at `peak` (the sheet's peak for the point's precision).
WaveDevice datasheet_device(const GpuDatasheet& sheet, double peak);

// A point as the wave model's fit takes it: its GEMM, its device and its measured time.
WavePoint wave_point(const DeepBenchPoint& p);

// `table` is "gemm" (gemm.csv), "conv" (conv.csv, forward pass) or "conv_backward" (conv.csv's data and
// weight gradients: a point per pass timed, GemmShape::conv_pass 1 or 2; `index` counts within a GPU,
// precision and pass). Rows of GPUs or precisions without datasheet figures are skipped.
std::vector<DeepBenchPoint> load_deepbench(const std::string& dir, const std::string& table,
                                           const std::map<std::string, GpuDatasheet>& sheets);

// True for the points held out of calibration: every third problem of each block (index % 3 == 1).
inline bool held_out(int index) {
  return index % 3 == 1;
}

struct BlockResult {
  std::string gpu, precision;
  int train = 0, test = 0;
  ErrorStats datasheet;  // held-out points, datasheet figures only
  ErrorStats calibrated; // held-out points, after fitting this block's training points
  RooflineFit fit;
};

// Medians over the problems both GPUs were timed on (fp32): second's time / first's.
struct SiblingPair {
  std::string first, second;
  int problems = 0;
  double measured_ratio = 0;
  double wave_ratio = 0; // as the wave model (fitted without `second`) puts it, from their datasheets
};

struct DeepBenchResult {
  std::string table;
  std::vector<BlockResult> blocks;
  ErrorStats datasheet;  // all held-out points
  ErrorStats calibrated; // all held-out points, per-block calibration
  // Leave one GPU out (fp32 only): one fit shared by the other GPUs, applied to the left-out GPU's
  // datasheet figures; every point of the left-out GPU is held out.
  std::map<std::string, ErrorStats> leave_one_gpu_out;
  ErrorStats leave_one_gpu_out_all;
  // The size-aware wave model (sim/wave_model.hpp), leave one GPU out the same way: its shared
  // parameters fitted on the other GPUs' fp32 points only.
  std::map<std::string, ErrorStats> wave_leave_one_gpu_out;
  std::map<std::string, WaveParams> wave_fit_without;
  // The parameters shared by the other nine GPUs alone, before the refit on the left-out GPU's
  // architecture (the other GPUs of that architecture; none for an architecture only it has).
  std::map<std::string, ErrorStats> wave_leave_one_gpu_out_shared;
  ErrorStats wave_leave_one_gpu_out_shared_all;
  std::map<std::string, WaveParams> wave_fit_shared_without; // those shared parameters
  std::map<std::string, WaveParams> wave_fit_own;            // fitted on the GPU's own training split
  ErrorStats wave_leave_one_gpu_out_all;
  // The same fits, with only the launch overhead taken from the left-out GPU's fastest problem (see
  // deepbench_wave.cpp): how much of the error is the host and driver's fixed cost per kernel.
  std::map<std::string, ErrorStats> wave_leave_one_gpu_out_own_launch;
  ErrorStats wave_leave_one_gpu_out_own_launch_all;
  // ... and fitted on every third problem's complement of each GPU's fp32 block, like the roofline's.
  ErrorStats wave_calibrated;
  std::map<std::string, ErrorStats> wave_calibrated_by_gpu;
  // The twin transfer (deepbench_twins.cpp), a reference rather than a model: each GPU's problems
  // predicted from the measured times of the other GPUs of its architecture, scaled by the wave model's
  // ratio between the two GPUs (its shared parameters fitted without the predicted GPU), and unscaled.
  // Only GPUs with architecture kin appear.
  std::map<std::string, ErrorStats> twin_scaled, twin_unscaled;
  ErrorStats twin_scaled_all, twin_unscaled_all;
  // Siblings (deepbench_twins.cpp): two GPUs of one architecture, memory type and software stack, timed on
  // the same problems. Any model that costs a GPU from its datasheet must put their times in the ratio their
  // figures give; where the measured ratio differs, no such model can be right on both left out.
  std::vector<SiblingPair> siblings;
};

DeepBenchResult evaluate_deepbench(const std::vector<DeepBenchPoint>& points, const std::string& table);
// Fills the wave_* figures of `res` (called by evaluate_deepbench).
void evaluate_deepbench_wave(const std::vector<DeepBenchPoint>& points, DeepBenchResult& res);
// Fills the twin_* figures and the siblings of `res`; needs wave_fit_shared_without (called after the
// wave figures).
void evaluate_deepbench_twins(const std::vector<DeepBenchPoint>& points, DeepBenchResult& res);

// The DeepBench calibration of one GPU (a heterosim-calibration file): it applies to a device of that model
// (the datasheet's model string), whatever the platform calls the device; `wave` is the GPU's own wave fit
// and `wave_held_out` its held-out MAPE. The two paths are named in its provenance.
std::string deepbench_calibration(const BlockResult& b, const GpuDatasheet& sheet, const WaveParams& wave,
                                  double wave_held_out, const std::string& deepbench_dir,
                                  const std::string& datasheets);

} // namespace hs::validation
