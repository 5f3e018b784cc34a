#pragma once
// The validation report: every figure with the data it comes from, as JSON and as text.
#include "validation/cpu_validation.hpp"
#include "validation/deepbench.hpp"
#include "validation/learned_fit.hpp"
#include "validation/measured_gpu_trees.hpp"
#include "validation/published_kernels.hpp"
#include "validation/shipped_gpu_check.hpp"
#include "validation/torch_validation.hpp"

#include <optional>
#include <string>

namespace hs::validation {

struct ValidationReport {
  std::string cpu_measurements;           // file the kernel figures come from
  std::string kernel_device_kind = "cpu"; // what that set measured: cpu or gpu
  std::map<std::string, std::string> cpu_environment;
  std::map<int, CpuKernelValidation> cpu;             // by co-running threads; 1 = each kernel alone
  std::optional<ShippedGpuCheck> shipped_gpu;         // a GPU set's GEMMs under the shipped GPU model
  std::optional<MeasuredGpuTrees> measured_gpu_trees; // a GPU set's GEMMs learned by the trees
  std::string measured_gpu_trees_skipped;             // why not, where a GPU set's were not learned
  std::string executions_file;                        // empty when no end-to-end set was given
  std::optional<EndToEndValidation> end_to_end;
  std::string deepbench_dir; // empty when skipped
  std::optional<DeepBenchResult> deepbench_gemm, deepbench_conv;
  std::optional<LearnedValidation> learned;      // empty when skipped or built without XGBoost
  std::optional<TorchValidation> torch;          // PyTorch whole models; empty when skipped
  std::optional<PublishedKernelCheck> published; // published GEMMs of newer GPUs; empty when skipped
};

std::string validation_report_json(const ValidationReport& r);
std::string validation_report_text(const ValidationReport& r);

} // namespace hs::validation
