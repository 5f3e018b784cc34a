#pragma once
// The GPU model HeteroSim ships (models/calibration-deepbench-gpu.json: the trees fitted on DeepBench's GPUs,
// the wave model on those and a sample of NeuSight's published GEMMs) against the GEMMs of a GPU measurement
// set, as `hs_measure_cuda` writes it: the question a user asks of a GPU the model has never measured. Every
// point of the set is held out, since none was fitted on (the same board may have been, in published data).
#include "sim/calibration.hpp"
#include "sim/platform.hpp"
#include "validation/error_stats.hpp"
#include "validation/measurement_set.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

struct ShippedGpuCheck {
  std::string calibration; // the file
  std::string costed_by;   // the learned model, or the wave model alone and why
  ErrorStats gemm;         // every GEMM point
  // By what the point stands for (its label's first word): "gemm" (the square and rectangular grid),
  // "linear" (a transformer's linear layers, m tokens) and "bmm" (attention's batched products).
  std::map<std::string, ErrorStats> by_group;
  std::vector<double> signed_errors; // percent, one per GEMM point in the set's order
};

// A GEMM point's dimension `name` ("m", "n", "k", "batch"), or `fallback` where the set does not give it.
double gemm_dim(const KernelPoint& p, const char* name, double fallback);
// Whether a point names m, n and k, which the size-aware models need.
bool names_gemm_dims(const KernelPoint& p);

// The shipped model's GEMM times on `gpu` (the set's own one-GPU platform, validate's this-gpu.json) against
// the set's measured P50s; nullopt when the set has no GEMM or the model does not calibrate the device (no
// compute_units).
std::optional<ShippedGpuCheck> check_shipped_gpu_model(const MeasurementSet& m, const Platform& gpu,
                                                       const Calibration& shipped);

} // namespace hs::validation
