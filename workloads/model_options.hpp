#pragma once
// The parameters every model builder shares (batch, precision, mode), read with the same names and checks.
#include "workloads/layers.hpp"
#include "workloads/workload_registry.hpp"

namespace hs::layers {

// batch=<n> precision=fp32|fp16|bf16|int8 mode=inference|training. int8 is inference only.
ModelOptions read_model_options(WorkloadParams& p, const std::string& builder, long long default_batch);

// The parameter line every model builder lists in `heterosim workloads`.
inline constexpr const char* kCommonModelParameters = "precision=fp32|fp16|bf16|int8 mode=inference|training";

} // namespace hs::layers
