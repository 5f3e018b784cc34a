#include "workloads/layers.hpp"
#include "workloads/per_element_flops.hpp"

// The cross-entropy losses a training graph ends in, one per implementation.

namespace hs::layers {

ValueId LayerGraph::loss(const std::string& name, ValueId logits, double rows, double classes) {
  switch (options_.loss) {
  case Loss::Eager:
    return eager_loss(name, logits, rows, classes);
  case Loss::Megatron:
    return fp32_vocab_loss(name, logits, rows, classes);
  case Loss::Fused:
    break;
  }
  return fused_loss(name, logits, rows, classes);
}

ValueId LayerGraph::fused_loss(const std::string& name, ValueId logits, double rows, double classes) {
  Layer& l = add_layer(b_.op(name), "softmax", {logits}, per_element::loss_forward * rows * classes);
  l.is_loss = true;
  l.data_grad_kind = "softmax";
  l.data_grad_flops = per_element::loss_grad * rows * classes;
  return single_output(l, rows * elem_, true);
}

ValueId LayerGraph::fp32_vocab_loss(const std::string& name, ValueId logits, double rows, double classes) {
  constexpr double fp32 = 4;
  const double e = rows * classes;
  // output.float(); its backward casts the fp32 gradient back to the logits' precision.
  Layer& cast = add_layer(b_.op(name + ".float"), "elementwise", {logits}, e);
  cast.saved = Saved::Nothing;
  cast.data_grad_kind = "elementwise";
  cast.data_grad_flops = e;
  name_dims(cast, {{"n", e}, {"arity", 1}, {"transcendental", 0}});
  const ValueId copy = single_output(cast, fp32 * e, true);
  // Five passes over the copy, three of them writing it: the buffer ends up holding the softmax, which
  // the backward pass reads (Saved::Inputs: the copy is that buffer) and scales in place by the loss's
  // gradient. Three figures per row leave: the partial max, target logit and sum of exponentials.
  Layer& soft = add_layer(b_.op(name + ".softmax"), "softmax", {copy}, per_element::softmax_forward * e);
  soft.data_grad_kind = "elementwise";
  soft.data_grad_flops = e; // softmax x the loss's gradient (and one subtraction per row at the target)
  const ValueId partials = single_output(soft, 3 * fp32 * rows, true);
  Op& passes = b_.mutable_op(soft.op);
  passes.bytes_read = 5 * fp32 * e;
  passes.bytes_written += 3 * fp32 * e;
  Layer& l = add_layer(b_.op(name), "elementwise", {partials}, 2 * rows); // log(sum) - target logit
  l.is_loss = true;
  l.saved = Saved::Nothing;
  l.data_grad_kind = "elementwise";
  l.data_grad_flops = rows;
  return single_output(l, fp32 * rows, true);
}

ValueId LayerGraph::eager_loss(const std::string& name, ValueId logits, double rows, double classes) {
  const double e = rows * classes;
  Layer& log_softmax =
      add_layer(b_.op(name + ".log_softmax"), "softmax", {logits}, per_element::log_softmax_forward * e);
  log_softmax.saved = Saved::Output;
  log_softmax.data_grad_kind = "softmax";
  log_softmax.data_grad_flops = per_element::log_softmax_data_grad * e;
  name_dims(log_softmax, {{"rows", rows}, {"cols", classes}});
  const ValueId log_probs = single_output(log_softmax, e * elem_, true);
  // nll_loss reads one log-probability per row (and the int64 targets); its gradient is a zero-filled
  // [rows, classes] tensor with -1/rows at each target, which the generic backward op writes whole.
  Layer& l = add_layer(b_.op(name), "elementwise", {log_probs}, rows);
  l.is_loss = true;
  l.saved = Saved::Nothing;
  l.data_grad_kind = "elementwise";
  l.data_grad_flops = rows;
  b_.mutable_op(l.op).bytes_read = rows * (elem_ + 8);
  return single_output(l, elem_, true);
}

} // namespace hs::layers
