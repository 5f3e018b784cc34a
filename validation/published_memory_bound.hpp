#pragma once
// Published timings of the kernels a transformer runs between its GEMMs: NeuSight's elementwise ops,
// softmax and layer norm (ASPLOS 2025; PyTorch 2.1 eager, fp32, seven NVIDIA GPUs;
// validation/measurements/neusight/SOURCE.md). They are bound by memory, so each kind is modelled as its
// bytes over a share of the datasheet's bandwidth: one share for a streaming elementwise pass, and a factor
// per kind over it for the softmax's and layer norm's extra passes and reductions. The shares are shared by
// every GPU, so they can cost a GPU nobody measured; each GPU is left out of the fit that scores it.
#include "sim/calibration.hpp"
#include "validation/deepbench.hpp"
#include "validation/error_stats.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::validation {

struct MemoryBoundPoint {
  std::string gpu;     // gpus.csv key
  std::string op;      // as published: add, addu, ..., gelu, softmax, ln
  std::string kind;    // HeteroSim's op kind: elementwise, softmax or layernorm
  double elements = 0; // of the b x h output
  double bytes = 0;    // each input read and the output written once
  double flops = 0;    // the workload builders' count for the kind
  double seconds = 0;
};

// `dir`/memory_bound.csv, each GPU by its model in `dir`/gpus.csv; empty when the folder has no such file.
// InputError naming the file and line for an unknown op or GPU, or a non-positive size or time.
std::vector<MemoryBoundPoint> load_published_memory_bound(const std::string& dir);

// What a calibration entry says about memory-bound ops: calibrated bandwidth = datasheet bandwidth x
// memory_efficiency / memory_time_factor[kind] (Calibration::Entry).
struct MemoryBoundFit {
  double memory_efficiency = 1.0;                   // for a memory type none of the fitted GPUs had
  std::map<std::string, double> memory_time_factor; // softmax and layernorm; elementwise is 1
  // Per memory family ("HBM", "GDDR"; Calibration::Entry::by_memory_type): its streaming share, and the
  // kinds' factors over it, which keep each kind's time per byte the one fitted on every GPU.
  std::map<std::string, Calibration::Entry::MemorySystem> by_memory_type;
};

struct PublishedMemoryBound {
  std::size_t points = 0;
  double launch_seconds = 0; // the launch overhead every prediction adds (the GPU presets')
  MemoryBoundFit fit;        // on every GPU: what the shipped calibration carries
  MemoryBoundFit assumed;    // the presets' assumed figures, for comparison
  // By kind: the assumed figures, and the shares fitted without the GPU scored (held out).
  std::map<std::string, ErrorStats> assumed_by_kind, held_out_by_kind;
  std::map<std::string, std::map<std::string, ErrorStats>> held_out_by_gpu; // gpu -> kind
  std::map<std::string, MemoryBoundFit> fit_without;                        // gpu -> the fit that scored it
};

// Fits and scores `points` (load_published_memory_bound), each GPU costed as `run` costs a device of its
// datasheet (`sheets`) with the fitted figures in a calibration.
PublishedMemoryBound evaluate_published_memory_bound(const std::vector<MemoryBoundPoint>& points,
                                                     const std::map<std::string, GpuDatasheet>& sheets);

// The shares from `points` alone: per kind, the time per byte over the datasheet bandwidth that minimises
// the relative absolute error, after the launch overhead.
MemoryBoundFit fit_memory_bound(const std::vector<const MemoryBoundPoint*>& points,
                                const std::map<std::string, GpuDatasheet>& sheets, double launch_seconds);

} // namespace hs::validation
