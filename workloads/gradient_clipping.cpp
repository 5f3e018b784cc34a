#include "workloads/layer_roles.hpp"
#include "workloads/layers.hpp"

// Gradient clipping by the global norm, as torch.nn.utils.clip_grad_norm_ runs it
// (torch/nn/utils/clip_grad.py; PyTorch 1.13 loops over the tensors, 2.x makes the same passes with
// _foreach_norm and _foreach_mul_):
//   norms = [norm(g) for g in grads]               one read of every gradient, a scalar each
//   total = norm(stack(norms))                     two kernels over a few hundred scalars
//   coef = clamp(max_norm / (total + 1e-6), max=1) three kernels on one scalar
//   for g in grads: g.mul_(coef)                   a read and a write of every gradient
// The scalars' kernels cost their launches; each is an op, so a run counts every launch.

namespace hs::layers {

namespace {
// The scalar chain from the per-tensor norms to the coefficient, in the order PyTorch runs it.
struct ScalarStep {
  const char* name;
  const char* kind;
  bool reads_all_norms; // stack reads every norm; the rest read one scalar
  bool writes_all_norms;
  double flops_per_norm, flops;
};
constexpr ScalarStep coefficient_steps[] = {
    {"grad_clip.stack", "elementwise", true, true, 0, 0},
    {"grad_clip.total_norm", "reduce", true, false, 2, 0},
    {"grad_clip.add_eps", "elementwise", false, false, 0, 1},
    {"grad_clip.coef", "elementwise", false, false, 0, 1},
    {"grad_clip.clamp", "elementwise", false, false, 0, 1},
};
} // namespace

std::map<OpId, std::vector<ValueId>>
LayerGraph::emit_gradient_clipping(const std::map<OpId, std::vector<ValueId>>& weight_grads,
                                   std::size_t forward_layers) {
  // One norm per parameter tensor: a layer's weight and its bias where it has one; a norm's scale and shift.
  std::vector<ValueId> norms;
  for (std::size_t i = 0; i < forward_layers; ++i) {
    const Layer& l = layers_[i];
    auto it = weight_grads.find(l.op);
    if (it == weight_grads.end()) continue;
    const double tensors = l.bias > 0 || l.kind == "batchnorm" || l.kind == "layernorm" ? 2 : 1;
    auto h = b_.op(l.name + kGradientNormSuffix);
    h.kind("reduce").precision(options_.precision).flops(2 * l.weights);
    h.reads(bytes_of(it->second)).writes(tensors * elem_);
    for (ValueId g : it->second)
      use(g, h.id());
    norms.push_back(new_value(h.id(), tensors * elem_, l.name + ":grad_norm", false));
  }
  if (norms.empty()) return weight_grads;

  const double all_norms = bytes_of(norms);
  std::vector<ValueId> previous = norms;
  for (const ScalarStep& s : coefficient_steps) {
    auto h = b_.op(s.name);
    h.kind(s.kind).precision(options_.precision).flops(s.flops + s.flops_per_norm * all_norms / elem_);
    const double written = s.writes_all_norms ? all_norms : elem_;
    h.reads(s.reads_all_norms ? all_norms : elem_).writes(written);
    for (ValueId v : previous)
      use(v, h.id());
    previous = {new_value(h.id(), written, std::string(s.name) + ":out", false)};
  }
  const ValueId coefficient = previous.front();

  std::map<OpId, std::vector<ValueId>> clipped;
  for (std::size_t i = 0; i < forward_layers; ++i) {
    const Layer& l = layers_[i];
    auto it = weight_grads.find(l.op);
    if (it == weight_grads.end()) continue;
    auto h = b_.op(l.name + kGradientScaleSuffix);
    h.kind("elementwise").precision(options_.precision).flops(l.weights);
    h.reads(bytes_of(it->second) + elem_).writes(l.weights * elem_);
    for (ValueId g : it->second)
      use(g, h.id());
    use(coefficient, h.id());
    clipped[l.op] = {new_value(h.id(), l.weights * elem_, l.name + ":dW_clipped", false)};
  }
  return clipped;
}

} // namespace hs::layers
