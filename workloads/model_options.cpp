#include "workloads/model_options.hpp"

#include "sim/error.hpp"

namespace hs::layers {

ModelOptions read_model_options(WorkloadParams& p, const std::string& builder, long long default_batch) {
  ModelOptions o;
  o.batch = p.integer("batch", default_batch, 1, 1'000'000);
  o.precision = p.text("precision", "fp32", {"fp32", "fp16", "bf16", "int8"});
  o.training = p.text("mode", "inference", {"inference", "training"}) == "training";
  if (o.training && o.precision == "int8")
    throw InputError(builder, "precision", "int8 is for inference; train in fp32, fp16 or bf16");
  return o;
}

} // namespace hs::layers
