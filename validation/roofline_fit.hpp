#pragma once
// Least-squares fit of the cost model's roofline parameters from measured kernel times:
//   t = launch + max(flops / (peak x efficiency[kind]), bytes / (bandwidth x memory_efficiency))
// The max is handled by assigning each point to its bound (compute or memory) and refitting until the
// assignment is stable; each fit is a linear least-squares problem in (launch, 1/efficiency[kind],
// 1/memory_efficiency), weighted by 1/measured so that residuals are relative errors, then reweighted
// (IRLS) towards the least mean absolute relative error, with bounds efficiency <= 1 and launch >= 0
// kept by fixing violators at the bound and solving again.
#include "sim/cost_model.hpp"
#include "sim/json_input.hpp"
#include "sim/wave_model.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

struct FitPoint {
  std::string kind;
  double flops = 0.0;
  double bytes = 0.0;
  double seconds = 0.0;    // measured
  double peak_flops = 0.0; // device nominal, flop/s
  double bandwidth = 0.0;  // device nominal, bytes/s
  // A GEMM or convolution run as a CPU BLAS does (sim/cost_model.cpp): the bytes of A and B it packs
  // (0: not such a point) and, for a convolution, of the column matrix im2col writes first. Such a point
  // is fitted as those copies plus a GEMM at the "gemm" efficiency, as the cost model costs it.
  double pack_bytes = 0.0;
  double im2col_bytes = 0.0;
};

struct RooflineFit {
  std::map<std::string, double> efficiency; // per kind, only kinds with compute-bound points
  double memory_efficiency = 1.0;
  // Per kind with at least kMinFactorPoints memory-bound points: its memory time over the bandwidth's
  // (Calibration::Entry::memory_time_factor), normalised so that the memory-bound points' geometric mean is
  // 1 and the bandwidths stay those of a typical kind.
  std::map<std::string, double> memory_time_factor;
  double launch_overhead = 0.0;                      // seconds
  std::vector<Calibration::MemoryTier> memory_tiers; // fitted bandwidth of each cache level with points
  // Fitted when structured points (pack_bytes > 0) were: what Calibration::Entry::GemmStructure holds.
  std::optional<Calibration::Entry::GemmStructure> gemm_structure;
  int iterations = 0;

  double predict(const FitPoint& p) const;
  Calibration::Entry as_calibration_entry() const;
};

// The seconds the platform's nominal figures alone predict (efficiency 1, no launch overhead).
double datasheet_prediction(const FitPoint& p);

inline constexpr int kMinFactorPoints = 3;

// `compute_kinds` start as compute-bound, others as memory-bound. `tier_bounds` (ascending bytes, for
// example the L2 and L3 cache sizes) gives memory-bound points that move at most that many bytes their
// own fitted bandwidth; empty: one bandwidth for all. Each kind's memory time factor is fitted with the rest
// by variable projection (roofline_fit.cpp).
RooflineFit fit_roofline(const std::vector<FitPoint>& points, const std::vector<std::string>& compute_kinds,
                         const std::vector<double>& tier_bounds = {});

// One entry of a calibration file: the fit, the devices it applies to and what it was fitted on.
struct CalibrationOut {
  std::string name;
  Calibration::AppliesTo applies_to;
  std::string measured;
  std::optional<double> held_out_mape_percent;
  RooflineFit fit;
  std::optional<WaveParams> wave; // GEMMs by the wave model, where the device has compute units
  // A heterosim-framework-model file named relative to the calibration, and the intra-op threads its
  // devices run each op on (docs/calibration.md); empty: none.
  std::string framework_model;
  int intra_op_threads = 1;
  std::string learned_model; // a heterosim-learned-model file named relative to the calibration; empty: none
  // `fit` is written unless false: an entry for a kind of device that only says how its GEMMs run leaves
  // every other op to the platform's own figures.
  bool roofline = true;
  std::map<std::string, double> held_out_mape_percent_by_model;      // see Calibration::Entry
  std::optional<double> wave_held_out_mape_percent;                  // see Calibration::Entry
  std::map<std::string, double> wave_held_out_mape_percent_by_model; // see Calibration::Entry
  std::optional<double> issue_overhead; // seconds; a traced GPU run's host time per issued op
  // Memory-bound ops' figures where `roofline` is false (see Calibration::Entry), with their held-out error
  // per kind.
  std::optional<double> memory_efficiency;
  std::map<std::string, double> memory_time_factor, memory_held_out_mape_percent;
  std::map<std::string, Calibration::Entry::MemorySystem> by_memory_type;
};

// An entry's by_memory_type object, as sim/calibration.cpp reads it.
Json memory_systems_json(const std::map<std::string, Calibration::Entry::MemorySystem>& systems);

// A calibration file (format "heterosim-calibration", version 2) with the provenance that `heterosim run
// --calibration` prints and records.
std::string calibration_json(const std::vector<CalibrationOut>& entries, const std::string& source,
                             const std::string& notes);

} // namespace hs::validation
