#pragma once
// The parameters every model builder shares (batch, precision, mode), read with the same names and checks.
#include "workloads/layers.hpp"
#include "workloads/workload_registry.hpp"

namespace hs::layers {

// batch=<n> precision=fp32|fp16|bf16|int8 mode=inference|training optimizer=adam|foreach|megatron
// bias_grad=fused|separate clip=off|norm issue=captured|eager. int8 is inference only; optimizer, bias_grad
// and clip are for training.
ModelOptions read_model_options(WorkloadParams& p, const std::string& builder, long long default_batch);

// A model builder's parameter list: batch, then the builder's own, then precision and mode.
std::vector<WorkloadParameter> model_parameters(std::vector<WorkloadParameter> own,
                                                WorkloadParameter batch = {"batch", "1"});

} // namespace hs::layers
