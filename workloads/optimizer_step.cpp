#include "workloads/layers.hpp"

// The optimizer ops of a training step: what each implementation of Adam moves per parameter.

namespace hs::layers {

namespace update_flops {
// Adam (Kingma & Ba 2015, Alg. 1, as PyTorch implements it): m = b1*m + (1-b1)*g (3), v = b2*v + (1-b2)*g*g
// (4), denom = sqrt(v)/sqrt(bc2) + eps (3), p -= step * m / denom (3).
constexpr double adam = 13;
// AdamW's decoupled weight decay, p *= 1 - lr * wd, before Adam.
constexpr double adamw = 1 + adam;
// Megatron-LM's fp16 optimizer step: the unscale (1), the squared norm (2) and Adam.
constexpr double megatron_step = 1 + 2 + adam;
} // namespace update_flops

namespace {

struct UpdateTraffic {
  double flops = 0;             // per parameter
  double state = 0;             // resident optimizer state, bytes per parameter
  double reads = 0, writes = 0; // bytes per parameter besides one read of the gradient tensors
  double workspace = 0;         // bytes per parameter held while the op runs
};

// Megatron-LM's Float16OptimizerWithFloat16Params.step(): the model gradients are copied to an fp32 main
// gradient (the workspace), which is unscaled by the loss scale and checked for inf and NaN in place, then
// read for its norm (clipping); Adam reads the main parameter, gradient and both moments and writes three
// back; the main parameter is copied to the model's weight. (Clipping's rescale runs only when the norm
// exceeds the bound.)
UpdateTraffic megatron_traffic(double elem) {
  constexpr double fp32 = 4;
  return {update_flops::megatron_step, 8 + fp32, fp32 + fp32 + 4 * fp32 + fp32, fp32 + fp32 + 3 * fp32 + elem,
          fp32};
}

// One fused pass: reads the weight, its gradient and both moments, writes the weight and the moments. Two
// fp32 moments; with fp16/bf16 weights also an fp32 master copy (mixed-precision training, Micikevicius
// et al. 2018), read and written with them.
UpdateTraffic fused_traffic(double elem) {
  const double state = 8 + (elem < 4 ? 4 : 0);
  return {update_flops::adam, state, elem + state, elem + state, 0};
}

// torch.optim.AdamW's default when fused=True is not given (PyTorch 2.x, `_multi_tensor_adamw` in
// torch/optim/adamw.py; `_single_tensor_adamw` makes the same passes one tensor at a time): eight passes
// over the weights, each reading and writing whole tensors. p.mul_(1 - lr wd) [p: r w]; m.lerp_(g) [m g: r,
// m: w]; v.mul_(b2) [v: r w]; v.addcmul_(g, g) [v g: r, v: w]; t = sqrt(v) [v: r, t: w]; t.div_(bc2)
// [t: r w]; t.add_(eps) [t: r w]; p.addcdiv_(m, t) [p m t: r, p: w]. The moments and t take the weights'
// dtype (zeros_like), so there is no master copy. Reads: p 2, m 2, v 3, t 3 and g twice (one counted as
// the gradient tensors' bytes); writes: p 2, m 1, v 2, t 3. t, a tensor the size of the weights, is the
// workspace (the foreach path allocates it for every weight of the group at once; here each op holds its
// own share).
UpdateTraffic foreach_traffic(double elem) {
  return {update_flops::adamw, 2 * elem, (10 + 1) * elem, 8 * elem, elem};
}

UpdateTraffic traffic(Optimizer o, double elem) {
  switch (o) {
  case Optimizer::Megatron:
    return megatron_traffic(elem);
  case Optimizer::Foreach:
    return foreach_traffic(elem);
  case Optimizer::Adam:
    break;
  }
  return fused_traffic(elem);
}

} // namespace

void LayerGraph::emit_updates(const std::map<OpId, std::vector<ValueId>>& weight_grads,
                              std::size_t forward_layers) {
  const UpdateTraffic t = traffic(options_.optimizer, elem_);
  const std::map<OpId, std::vector<ValueId>> grads =
      options_.clip_grad_norm ? emit_gradient_clipping(weight_grads, forward_layers) : weight_grads;
  for (std::size_t i = 0; i < forward_layers; ++i) {
    const Layer& l = layers_[i];
    auto it = grads.find(l.op);
    if (it == grads.end()) continue;
    auto h = b_.op(l.name + ".adam");
    h.kind("optimizer").precision(options_.precision).params(t.state * l.weights);
    h.flops(t.flops * l.weights);
    if (t.workspace > 0) h.workspace(t.workspace * l.weights);
    h.reads(bytes_of(it->second) + t.reads * l.weights).writes(t.writes * l.weights);
    for (ValueId g : it->second)
      use(g, h.id());
  }
}

} // namespace hs::layers
