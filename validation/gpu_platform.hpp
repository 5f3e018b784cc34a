#pragma once
// A one-device platform for the GPU a CUDA measurement set (hs_measure_cuda) was taken on, so that
// `validate`'s calibration for that GPU has a platform to run on.
#include "validation/measurement_set.hpp"

#include <string>

namespace hs::validation {

// The GPU's model string as its driver reported it (environment "gpu_model"), else the set's device name.
std::string measured_model(const MeasurementSet& m);

// JSON text of the platform: one device named as in the set, kind "gpu", model and compute units from the
// environment snapshot, peaks from the set (with the sources the snapshot records).
std::string gpu_platform_json(const MeasurementSet& m);

} // namespace hs::validation
