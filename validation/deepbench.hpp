#pragma once
// DeepBench's published GPU GEMM and convolution timings as a second source of truth: predicted from each
// GPU's datasheet figures alone, then after calibrating the roofline on part of them.
#include "validation/error_stats.hpp"
#include "validation/roofline_fit.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct GpuDatasheet {
  std::string gpu;
  double fp32_flops = 0.0;
  double fp16_tensor_flops = 0.0; // 0 when the GPU has no tensor cores
  double bandwidth = 0.0;         // bytes/s
  std::string source;
};

std::map<std::string, GpuDatasheet> load_gpu_datasheets(const std::string& csv_path);

struct DeepBenchPoint {
  std::string gpu, precision, label;
  int index = 0; // position within its (gpu, precision) block, in sheet order
  FitPoint point;
};

// `table` is "gemm" (gemm.csv) or "conv" (conv.csv, forward pass). Rows of GPUs or precisions without
// datasheet figures are skipped.
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

struct DeepBenchResult {
  std::string table;
  std::vector<BlockResult> blocks;
  ErrorStats datasheet;  // all held-out points
  ErrorStats calibrated; // all held-out points, per-block calibration
  // Leave one GPU out (fp32 only): one fit shared by the other GPUs, applied to the left-out GPU's
  // datasheet figures; every point of the left-out GPU is held out.
  std::map<std::string, ErrorStats> leave_one_gpu_out;
  ErrorStats leave_one_gpu_out_all;
};

DeepBenchResult evaluate_deepbench(const std::vector<DeepBenchPoint>& points, const std::string& table);

} // namespace hs::validation
