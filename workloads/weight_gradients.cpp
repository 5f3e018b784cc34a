#include "sim/memory.hpp"
#include "workloads/layers.hpp"

#include <algorithm>

// A weight's gradient, as autograd's AccumulateGrad keeps it: one `.grad` tensor per weight.

namespace hs::layers {

void LayerGraph::add_weight_grad(std::vector<ValueId>& owner_grads, ValueId dW,
                                 const std::string& owner_name) {
  const auto earlier = std::find_if(owner_grads.begin(), owner_grads.end(), [&](ValueId v) {
    return values_[static_cast<std::size_t>(v)].name.ends_with(":dW");
  });
  if (earlier == owner_grads.end()) {
    owner_grads.push_back(dW);
    return;
  }
  // A tied weight's second use (GPT-2's token embedding, after its LM head's dW): AccumulateGrad adds the
  // new gradient into the `.grad` the first one left, so the optimizer reads one tensor, not two. The add
  // is in place on a GPU; here it writes a new tensor, the earlier one freed as the add ends.
  const double grad_bytes = bytes(dW);
  auto h = b_.op(owner_name + tied_gradient_sum_suffix);
  h.kind("elementwise").precision(options_.precision).flops(grad_bytes / elem_);
  h.reads(2 * grad_bytes).writes(grad_bytes);
  use(*earlier, h.id());
  use(dW, h.id());
  *earlier = new_value(h.id(), grad_bytes, owner_name + tied_gradient_sum_suffix + ":dW", true);
}

} // namespace hs::layers
