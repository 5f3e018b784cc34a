#pragma once
// The learned model retrained with a measured GPU's own GEMMs (a GPU measurement set, as `hs_measure_cuda`
// writes it), as TVM's cost model and StarPU's history-based models learn from the device they run on: two
// thirds of the set's GEMMs train beside DeepBench's problems and the published boards' GEMMs, as one more
// board the trees then cost by its model string (LearnedModel::boards), and the other third is held out and
// scored, beside the shipped model on the same points. Where the trees beat the set's own roofline fit on
// the training part (MeasuredGpuTrees::chosen), `validate` writes them as learned-gpu.json and names them in
// the GPU's calibration entry.
#include "sim/calibration.hpp"
#include "sim/platform.hpp"
#include "validation/cpu_validation.hpp"
#include "validation/error_stats.hpp"
#include "validation/learned_fit.hpp"
#include "validation/measurement_set.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

// What the trees learn from besides the set: DeepBench's fp32 points (software stacks known) and the
// published boards' GEMMs (learned by name), as the shipped model was trained.
struct MeasuredGpuBase {
  std::vector<const DeepBenchPoint*> deepbench;
  PublishedTraining published;
  std::string source; // where they came from, for the model file's provenance
};

struct MeasuredGpuTrees {
  std::string board;      // the set's model string, which the trees cost by name
  std::string model_text; // a heterosim-learned-model file
  WaveParams wave;        // the base the trees correct: the shipped trees' own
  int trained = 0;        // the set's GEMMs in the fit
  std::string beside;     // what else the trees learned, e.g. "DeepBench's problems"
  // On the set's held-out GEMMs (every third, as the set's roofline fit holds them out), costed as `run`
  // costs them: by the new trees, and by the shipped model.
  ErrorStats held_out, shipped_held_out;
  // Signed percent, one per held-out GEMM in the set's order (NaN for one that names no dimensions, which
  // the trees do not cost).
  std::vector<double> held_out_errors;
  // Which of the two costs the GPU's GEMMs, the trees or the set's roofline fit, chosen without the held-out
  // third: in three folds of the training part, each fitted on two and scored on the third's GEMMs, so every
  // training GEMM is scored once. Few GEMMs teach the trees little (20 of an L4: 49.6 % held out, against the
  // roofline fit's 25.1 %, results/measured_gpu/). Not chosen where the folds cannot be made.
  std::optional<ErrorStats> inner_trees, inner_roofline;
  bool chosen = false;
};

// Nullopt where there is nothing to learn: the set names no GEMM by its dimensions, the device has no
// compute units, the shipped calibration has no trees for it (a build without XGBoost), or `base` has no
// DeepBench point to learn beside.
std::optional<MeasuredGpuTrees> learn_measured_gpu(const MeasurementSet& set, const Platform& gpu,
                                                   const Calibration& shipped, const MeasuredGpuBase& base);

// The same on the set's own one-GPU platform (gpu_platform.hpp) against the shipped calibration
// (models/calibration-deepbench-gpu.json), with the base `validate` has: DeepBench's tables in
// `deepbench_dir` with `datasheets`, and the published boards' GEMMs (load_published_gemms; none: empty),
// each board's overhead per call fitted from the shipped trees' wave parameters as the shipped model's
// training takes it off. `shown` names the data in the model's provenance.
std::optional<MeasuredGpuTrees>
learn_measured_gpu(const MeasurementSet& set, const std::string& deepbench_dir, const std::string& datasheets,
                   const std::vector<DeepBenchPoint>& published, const std::string& shown);

// Per row of `v.held_out` (the set's roofline validation at one thread), the trees' error on it: NaN for a
// kernel they do not cost (not a GEMM, or one that names no dimensions).
std::vector<double> trees_error_by_row(const MeasuredGpuTrees& trees, const CpuKernelValidation& v);

// Points a GPU set's calibration entry `c` (its roofline fit, validated as `v`) at the trees' file, named
// relative to the calibration, where they were chosen (MeasuredGpuTrees::chosen): its GEMMs are then the
// trees', and its held-out figure is over every held-out kernel with the GEMMs' errors the trees'.
void name_trees(CalibrationOut& c, const MeasuredGpuTrees& trees, const std::string& file,
                const CpuKernelValidation& v);

} // namespace hs::validation
