#pragma once
// What `validate` writes from the torch sets for `heterosim run`: the framework cost model
// (sim/framework_model.hpp) fitted on everything measured (the kernel grid and every network's ops, timed
// as validation trains on them), and one calibration per intra-op thread count measured, which names that
// model and the thread count, for CPU devices.
#include "sim/framework_model.hpp"
#include "validation/torch_validation.hpp"

#include <map>
#include <string>

namespace hs::validation {

// The framework model of `timed_runs` (runs whose ops carry the times the model trains on, as
// TorchValidation::trained holds them) and the grid.
FrameworkModel torch_framework_model(const MeasurementSet& kernels, const TorchRunSet& timed_runs);

// File name -> text: `model_file` and calibration-torch-Nt.json for each N measured for every kind.
std::map<std::string, std::string> torch_calibration_files(const MeasurementSet& kernels,
                                                           const TorchValidation& v,
                                                           const std::string& model_file);

} // namespace hs::validation
