#include "workloads/model_options.hpp"

#include "sim/error.hpp"

namespace hs::layers {

std::vector<WorkloadParameter> model_parameters(std::vector<WorkloadParameter> own, WorkloadParameter batch) {
  std::vector<WorkloadParameter> all = {std::move(batch)};
  all.insert(all.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
  all.push_back({"precision", "fp32|fp16|bf16|int8"});
  all.push_back({"mode", "inference|training"});
  all.push_back({"optimizer", "adam|foreach|megatron",
                 "training: one fused Adam pass, PyTorch's AdamW as it runs without fused=True (a pass "
                 "per step of its arithmetic), or Megatron-LM's fp16 optimizer"});
  all.push_back({"bias_grad", "fused|separate",
                 "training: each bias's gradient in its weight-gradient GEMM, or a reduction of its own as "
                 "PyTorch's autograd runs it"});
  all.push_back({"clip", "off|norm",
                 "training: torch.nn.utils.clip_grad_norm_ before the optimizer step, as Hugging Face's "
                 "Trainer runs it"});
  all.push_back({"issue", "captured|eager",
                 "the host's time to issue each op: none (compiled or graph-captured), or eager PyTorch's, "
                 "measured (workloads/eager_issue.hpp)"});
  all.push_back({"device", "any|cpu|gpu|npu|fpga",
                 "the device kind every op may run on: any (the policy chooses), or one kind, as a framework "
                 "program moved to one device runs every op there"});
  return all;
}

ModelOptions read_model_options(WorkloadParams& p, const std::string& builder, long long default_batch) {
  ModelOptions o;
  o.batch = p.integer("batch", default_batch, 1, 1'000'000);
  o.precision = p.text("precision", "fp32", {"fp32", "fp16", "bf16", "int8"});
  o.training = p.text("mode", "inference", {"inference", "training"}) == "training";
  if (o.training && o.precision == "int8")
    throw InputError(builder, "precision", "int8 is for inference; train in fp32, fp16 or bf16");
  const std::string optimizer = p.text("optimizer", "adam", {"adam", "foreach", "megatron"});
  const bool megatron = optimizer == "megatron";
  if (optimizer != "adam" && !o.training)
    throw InputError(builder, "optimizer", "an optimizer updates weights in training: give mode=training");
  if (megatron && o.precision == "fp32")
    throw InputError(
        builder, "optimizer",
        "optimizer=megatron is Megatron-LM's fp16/bf16 optimizer (with fp32 weights it runs plain "
        "Adam, optimizer=adam): give precision=fp16 or bf16");
  if (megatron) o.optimizer = Optimizer::Megatron;
  if (optimizer == "foreach") o.optimizer = Optimizer::Foreach;
  o.separate_bias_grads = p.text("bias_grad", "fused", {"fused", "separate"}) == "separate";
  if (o.separate_bias_grads && !o.training)
    throw InputError(builder, "bias_grad", "bias gradients are computed in training: give mode=training");
  o.eager_issue = p.text("issue", "captured", {"captured", "eager"}) == "eager";
  o.clip_grad_norm = p.text("clip", "off", {"off", "norm"}) == "norm";
  if (const std::string kind = p.text("device", "any", {"any", "cpu", "gpu", "npu", "fpga"}); kind != "any")
    o.device_kind = kind;
  if (o.clip_grad_norm && !o.training)
    throw InputError(builder, "clip", "gradients are clipped in training: give mode=training");
  if (o.clip_grad_norm && megatron)
    throw InputError(
        builder, "clip",
        "optimizer=megatron already reads its gradients for their norm (Megatron-LM clips inside "
        "its step); give clip=off");
  return o;
}

} // namespace hs::layers
