#include "workloads/layers.hpp"

#include "workloads/eager_issue.hpp"
#include "workloads/per_element_flops.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace hs::layers {

double element_bytes(const std::string& precision) {
  if (precision == "fp64") return 8;
  if (precision == "fp16" || precision == "bf16") return 2;
  if (precision == "int8") return 1;
  return 4;
}

LayerGraph::LayerGraph(std::string graph_name, ModelOptions options)
    : options_(std::move(options)), elem_(element_bytes(options_.precision)), b_(std::move(graph_name)) {}

ValueId LayerGraph::new_value(OpId producer, double bytes, const std::string& name, bool requires_grad) {
  values_.push_back(Value{producer, bytes, name, {}, requires_grad});
  return static_cast<ValueId>(values_.size() - 1);
}

void LayerGraph::use(ValueId v, OpId consumer) {
  auto& c = values_[static_cast<std::size_t>(v)].consumers;
  if (std::find(c.begin(), c.end(), consumer) == c.end()) c.push_back(consumer);
}

bool LayerGraph::any_requires_grad(const std::vector<ValueId>& x) const {
  return std::any_of(x.begin(), x.end(),
                     [&](ValueId v) { return values_[static_cast<std::size_t>(v)].requires_grad; });
}

double LayerGraph::bytes_of(const std::vector<ValueId>& x) const {
  double s = 0;
  for (ValueId v : x)
    s += bytes(v);
  return s;
}

LayerGraph::Layer& LayerGraph::add_layer(OpHandle h, std::string kind, std::vector<ValueId> inputs,
                                         double flops) {
  h.kind(kind).precision(options_.precision).flops(flops).reads(bytes_of(inputs));
  for (ValueId v : inputs)
    use(v, h.id());
  Layer l;
  l.op = h.id();
  l.name = b_.mutable_op(h.id()).name;
  l.kind = std::move(kind);
  l.differentiable.assign(inputs.size(), true);
  l.inputs = std::move(inputs);
  l.flops = flops;
  l.recompute_block = options_.training ? recompute_block_ : -1;
  layer_of_op_[l.op] = layers_.size();
  op_by_name_[l.name] = l.op;
  layers_.push_back(std::move(l));
  return layers_.back();
}

// The op's named dimensions, in the names the framework cost model was fitted on
// (validation/torch/torch_ops.py describes torch's calls with the same ones).
void LayerGraph::name_dims(const Layer& layer, std::map<std::string, double> dims) {
  b_.mutable_op(layer.op).dims = std::move(dims);
}

ValueId LayerGraph::single_output(Layer& layer, double out_bytes, bool requires_grad) {
  b_.mutable_op(layer.op).bytes_written = out_bytes;
  const ValueId v = new_value(layer.op, out_bytes, layer.name, requires_grad);
  layer.outputs.push_back(v);
  return v;
}

ValueId LayerGraph::input(const std::string& name, double input_bytes) {
  auto h = b_.op(name);
  h.kind("input").precision(options_.precision).writes(input_bytes);
  return new_value(h.id(), input_bytes, name, false);
}

void LayerGraph::attach_weights(Layer& l, double weights, const std::string& weights_from, bool read_all) {
  Op& op = b_.mutable_op(l.op);
  if (read_all) op.bytes_read += weights * elem_;
  if (weights_from.empty()) {
    l.weights = weights;
    parameters_ += weights;
    op.param_bytes = weights * elem_;
    return;
  }
  auto it = op_by_name_.find(weights_from);
  if (it == op_by_name_.end())
    throw std::logic_error(l.name + ": no layer '" + weights_from + "' to share weights with");
  const Layer& owner = layers_[layer_of_op_.at(it->second)];
  if (owner.weights != weights)
    throw std::logic_error(l.name + ": shares weights of a different size with " + weights_from);
  l.weight_owner = owner.op;
}

std::vector<ValueId> LayerGraph::linear_parts(const std::string& name, const std::vector<ValueId>& x,
                                              double rows, double in, double out, bool bias, int parts,
                                              const std::string& weights_from) {
  const double flops = 2 * rows * in * out + (bias ? rows * out : 0);
  Layer& l = add_layer(b_.op(name), "gemm", x, flops);
  l.data_grad_kind = l.weight_grad_kind = "gemm";
  l.data_grad_flops = 2 * rows * in * out;
  l.weight_grad_flops = flops;
  l.data_grad_reads_saved = false;
  attach_weights(l, in * out + (bias ? out : 0), weights_from);
  l.bias = bias ? out : 0;
  // nn.Linear stores its weight [out, in]: Y = X W^T, dX = dY W, dW = dY^T X (here its transpose X^T dY).
  name_dims(l, {{"batch", 1}, {"m", rows}, {"n", out}, {"k", in}, {kTransposedB, 1}});
  l.data_grad_dims = {{"batch", 1}, {"m", rows}, {"n", in}, {"k", out}};
  l.weight_grad_dims = {{"batch", 1}, {"m", in}, {"n", out}, {"k", rows}, {kTransposedA, 1}}; // and db
  b_.mutable_op(l.op).bytes_written = rows * out * elem_;
  std::vector<ValueId> outs;
  for (int p = 0; p < parts; ++p)
    outs.push_back(new_value(l.op, rows * out * elem_ / parts,
                             parts == 1 ? name : name + ":part" + std::to_string(p), true));
  l.outputs = outs;
  return outs;
}

void LayerGraph::store_weights_in_out(const std::string& name) {
  Layer& l = layers_[layer_of_op_.at(op_by_name_.at(name))];
  if (l.kind != "gemm" || !l.data_grad_dims.count("k"))
    throw std::logic_error(name + ": only a linear layer's weights have a layout");
  b_.mutable_op(l.op).dims[kTransposedB] = 0;
  l.data_grad_dims[kTransposedB] = 1; // dW = X^T dY is the product nn.Linear's gradient already names
}

ValueId LayerGraph::conv2d(const std::string& name, ValueId x, const Conv& c, bool bias) {
  const double n = static_cast<double>(options_.batch);
  const double out_elements = n * static_cast<double>(c.channels_out * c.out_height() * c.out_width());
  const double macs_per_output = static_cast<double>(c.channels_in * c.kernel * c.kernel);
  const double weights = static_cast<double>(c.channels_out * c.channels_in * c.kernel * c.kernel) +
                         (bias ? static_cast<double>(c.channels_out) : 0);
  const double flops = 2 * out_elements * macs_per_output + (bias ? out_elements : 0);
  Layer& l = add_layer(b_.op(name), "conv2d", {x}, flops);
  l.data_grad_kind = l.weight_grad_kind = "conv2d";
  l.data_grad_flops = 2 * out_elements * macs_per_output;
  l.weight_grad_flops = flops;
  l.data_grad_reads_saved = false;
  attach_weights(l, weights, "");
  l.bias = bias ? static_cast<double>(c.channels_out) : 0;
  const auto d = [](long long v) { return static_cast<double>(v); };
  name_dims(l, {{"batch", n},
                {"cin", d(c.channels_in)},
                {"cout", d(c.channels_out)},
                {"h", d(c.height)},
                {"w", d(c.width)},
                {"kh", d(c.kernel)},
                {"kw", d(c.kernel)},
                {"stride", d(c.stride)},
                {"groups", 1},
                {"oh", d(c.out_height())},
                {"ow", d(c.out_width())}});
  // The gradients are implicit GEMMs of the same convolution (wave_model.hpp, conv_shape_of): dX and dW.
  l.data_grad_dims = l.weight_grad_dims = b_.mutable_op(l.op).dims;
  l.data_grad_dims["pass"] = 1;
  l.weight_grad_dims["pass"] = 2;
  return single_output(l, out_elements * elem_, true);
}

ValueId LayerGraph::batchnorm(const std::string& name, ValueId x, double elements, double channels) {
  Layer& l = add_layer(b_.op(name), "batchnorm", {x}, per_element::batchnorm_forward * elements);
  l.data_grad_kind = l.weight_grad_kind = "batchnorm";
  l.data_grad_flops = per_element::batchnorm_data_grad * elements;
  l.weight_grad_flops = per_element::norm_weight_grad * elements;
  attach_weights(l, 2 * channels, ""); // running statistics are buffers, not parameters
  name_dims(l, {{"n", elements}, {"c", channels}});
  return single_output(l, elements * elem_, true);
}

ValueId LayerGraph::layernorm(const std::string& name, ValueId x, double rows, double width,
                              const std::string& weights_from) {
  const double elements = rows * width;
  Layer& l = add_layer(b_.op(name), "layernorm", {x}, per_element::layernorm_forward * elements);
  l.data_grad_kind = l.weight_grad_kind = "layernorm";
  l.data_grad_flops = per_element::layernorm_data_grad * elements;
  l.weight_grad_flops = per_element::norm_weight_grad * elements;
  attach_weights(l, 2 * width, weights_from);
  name_dims(l, {{"rows", rows}, {"cols", width}});
  return single_output(l, elements * elem_, true);
}

ValueId LayerGraph::elementwise(const std::string& name, const std::vector<ValueId>& x, double elements,
                                double flops_per_element, Saved saved) {
  Layer& l = add_layer(b_.op(name), "elementwise", x, flops_per_element * elements);
  l.saved = saved;
  l.data_grad_kind = "elementwise";
  l.data_grad_flops = flops_per_element * elements;
  // Several FLOPs per element means a transcendental (GELU, tanh), as torch_ops.py counts them.
  name_dims(l, {{"n", elements},
                {"arity", static_cast<double>(x.size())},
                {"transcendental", flops_per_element >= 4 ? 1.0 : 0.0}});
  return single_output(l, elements * elem_, any_requires_grad(x));
}

ValueId LayerGraph::add(const std::string& name, const std::vector<ValueId>& x, double elements) {
  Layer& l = add_layer(b_.op(name), "elementwise", x, static_cast<double>(x.size() - 1) * elements);
  l.pass_through = true;
  name_dims(l, {{"n", elements}, {"arity", static_cast<double>(x.size())}, {"transcendental", 0}});
  return single_output(l, elements * elem_, any_requires_grad(x));
}

ValueId LayerGraph::softmax(const std::string& name, ValueId x, double rows, double width) {
  Layer& l = add_layer(b_.op(name), "softmax", {x}, per_element::softmax_forward * rows * width);
  l.saved = Saved::Output;
  l.data_grad_kind = "softmax";
  l.data_grad_flops = per_element::softmax_data_grad * rows * width;
  name_dims(l, {{"rows", rows}, {"cols", width}});
  return single_output(l, rows * width * elem_, any_requires_grad({x}));
}

ValueId LayerGraph::matmul(const std::string& name, ValueId a, ValueId b, double count, double m, double n,
                           double k, bool b_transposed, const std::string& kind) {
  const double flops = 2 * count * m * n * k;
  Layer& l = add_layer(b_.op(name), kind, {a, b}, flops);
  l.data_grad_kind = kind;
  l.data_grad_flops = 2 * flops; // dA = dC B^T and dB = A^T dC
  const double bt = b_transposed ? 1 : 0;
  name_dims(l, {{"batch", count}, {"m", m}, {"n", n}, {"k", k}, {kTransposedB, bt}});
  // dA = dC B^T reads B as stored when the product read it transposed; dB = A^T dC (or, for a B stored
  // transposed, dB^T = dC^T A).
  l.operand_grad_dims = {{{"batch", count}, {"m", m}, {"n", k}, {"k", n}, {kTransposedB, 1 - bt}},
                         {{"batch", count}, {"m", k}, {"n", n}, {"k", m}, {kTransposedA, 1}}};
  return single_output(l, count * m * n * elem_, any_requires_grad({a, b}));
}

ValueId LayerGraph::pooling(const std::string& name, ValueId x, double in_elements, double out_elements,
                            double window, bool max_pool) {
  Layer& l = add_layer(b_.op(name), "pooling", {x}, out_elements * window);
  l.saved = max_pool ? Saved::Inputs : Saved::Nothing; // max pooling routes the gradient to the argmax
  l.data_grad_kind = "pooling";
  l.data_grad_flops = std::max(in_elements, out_elements * window);
  name_dims(l, {{"n_in", in_elements},
                {"n_out", out_elements},
                {"window", in_elements / out_elements},
                {"max", max_pool ? 1.0 : 0.0}});
  return single_output(l, out_elements * elem_, any_requires_grad({x}));
}

ValueId LayerGraph::embedding(const std::string& name, ValueId ids, double rows, double vocab, double width,
                              const std::string& weights_from) {
  Layer& l = add_layer(b_.op(name), "embedding", {ids}, rows * width);
  l.differentiable = {false};
  l.weight_grad_kind = "scatter"; // the table's gradient is a scatter-add of the rows' gradients
  l.weight_grad_flops = rows * width;
  attach_weights(l, vocab * width, weights_from, false);
  b_.mutable_op(l.op).bytes_read += rows * width * elem_; // only the rows looked up are read
  name_dims(l, {{"rows", rows}, {"cols", width}});
  return single_output(l, rows * width * elem_, true);
}

ValueId LayerGraph::gather(const std::string& name, ValueId features, ValueId index, double edges,
                           double width) {
  Layer& l = add_layer(b_.op(name), "gather", {features, index}, edges * width);
  l.differentiable = {true, false};
  l.data_grad_kind = "scatter";
  l.data_grad_flops = edges * width;
  b_.mutable_op(l.op).bytes_read = edges * width * elem_ + bytes(index);
  return single_output(l, edges * width * elem_, any_requires_grad({features}));
}

ValueId LayerGraph::scatter(const std::string& name, ValueId messages, ValueId index, double edges,
                            double nodes, double width) {
  Layer& l = add_layer(b_.op(name), "scatter", {messages, index}, 2 * edges * width); // normalise and add
  l.differentiable = {true, false};
  l.saved = Saved::Nothing; // d(messages) is d(out) gathered by the index, which is a graph input
  l.data_grad_kind = "gather";
  l.data_grad_flops = 2 * edges * width;
  return single_output(l, nodes * width * elem_, any_requires_grad({messages}));
}

ValueId LayerGraph::reduce(const std::string& name, const std::vector<ValueId>& x, double elements,
                           double out_elements) {
  Layer& l = add_layer(b_.op(name), "reduce", x, elements);
  l.saved = Saved::Nothing;
  l.data_grad_kind = "elementwise";
  l.data_grad_flops = elements;
  return single_output(l, out_elements * elem_, any_requires_grad(x));
}

std::vector<ValueId> LayerGraph::custom(const std::string& name, const std::string& kind,
                                        const std::vector<ValueId>& x, double flops, double bytes_read,
                                        double bytes_written, const std::vector<double>& outputs) {
  Layer& l = add_layer(b_.op(name), kind, x, flops);
  l.differentiable.assign(x.size(), false);
  l.saved = Saved::Nothing;
  Op& op = b_.mutable_op(l.op);
  op.bytes_read = bytes_read;
  op.bytes_written = bytes_written;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    l.outputs.push_back(new_value(l.op, outputs[i], name + ":" + std::to_string(i), false));
  return l.outputs;
}

void LayerGraph::recompute(int block, const std::vector<ValueId>& trigger,
                           std::map<ValueId, ValueId>& copies) {
  bool first = true;
  // The residual adds run again too, as Megatron-LM's checkpointed forward does: the block keeps only its
  // input, and a tensor-parallel split repeats its all-reduces ahead of them.
  for (const Layer& m : layers_) {
    if (m.recompute_block != block) continue;
    Op again = b_.mutable_op(m.op).without_edges();
    again.name = m.name + ".recompute";
    again.param_bytes = 0; // the weights stay the forward op's
    const OpId r = b_.add(std::move(again)).id();
    if (first) // the block starts again when the backward pass reaches it
      for (ValueId g : trigger)
        use(g, r);
    first = false;
    for (ValueId x : m.inputs) {
      const auto it = copies.find(x);
      use(it != copies.end() ? it->second : x, r);
    }
    for (ValueId o : m.outputs)
      copies[o] = new_value(r, bytes(o), values_[static_cast<std::size_t>(o)].name + ":recomputed", false);
  }
}

ValueId LayerGraph::summed_gradient(const Layer& l, const std::vector<ValueId>& contributions) {
  if (contributions.size() == 1) return contributions.front(); // passed on as it is, no copy
  // Several consumers' gradients: summed once, as autograd's InputBuffer does, so that the residual stream
  // carries one gradient tensor rather than one per backward op downstream.
  const ValueId o = l.outputs.front();
  const double k = static_cast<double>(contributions.size());
  auto h = b_.op(l.name + ".gradsum");
  h.kind("elementwise").precision(options_.precision).flops((k - 1) * bytes(o) / elem_);
  h.reads(k * bytes(o)).writes(bytes(o));
  for (ValueId g : contributions)
    use(g, h.id());
  return new_value(h.id(), bytes(o), l.name + ".gradsum:d" + values_[static_cast<std::size_t>(o)].name, true);
}

void LayerGraph::emit_operand_grads(const Layer& l, const std::vector<ValueId>& upstream,
                                    const std::vector<ValueId>& saved, double accumulate,
                                    std::vector<std::vector<ValueId>>& grads) {
  const double per_operand = l.data_grad_flops / static_cast<double>(l.inputs.size());
  for (std::size_t k = 0; k < l.inputs.size(); ++k) {
    const ValueId v = l.inputs[k];
    if (!l.differentiable[k] || !values_[static_cast<std::size_t>(v)].requires_grad) continue;
    const ValueId other =
        saved[1 - k]; // dA = dC B^T reads B, dB = A^T dC reads A (or their recomputed copies)
    auto h = b_.op(l.name + (k == 0 ? ".bwd" : ".bwd_rhs"));
    h.kind(l.data_grad_kind).precision(options_.precision).flops(per_operand + (k == 0 ? accumulate : 0));
    h.reads(bytes_of(upstream) + bytes(other)).writes(bytes(v));
    b_.mutable_op(h.id()).dims = l.operand_grad_dims[k];
    for (ValueId g : upstream)
      use(g, h.id());
    use(other, h.id());
    grads[static_cast<std::size_t>(v)].push_back(
        new_value(h.id(), bytes(v),
                  b_.mutable_op(h.id()).name + ":d" + values_[static_cast<std::size_t>(v)].name, true));
  }
}

void LayerGraph::emit_backward() {
  if (std::none_of(layers_.begin(), layers_.end(), [](const Layer& l) { return l.is_loss; }))
    throw std::logic_error(b_.op_count() ? "training graph without a loss layer" : "empty model");
  // For each forward value, the gradient tensors whose sum is its gradient: one per backward op that
  // reads it, or a residual add's (one tensor, shared). Several are summed by the op that reads them.
  std::vector<std::vector<ValueId>> grads(values_.size());
  std::map<OpId, std::vector<ValueId>> weight_grads; // by owning layer op
  std::map<ValueId, ValueId> copies;                 // recomputed copies of checkpointed blocks' values
  std::set<int> recomputed_blocks;
  const std::size_t forward_layers = layers_.size();
  for (std::size_t i = forward_layers; i-- > 0;) {
    const Layer& l = layers_[i]; // layers_ does not grow during the backward pass
    std::vector<ValueId> upstream;
    double accumulate = 0; // several consumers' gradients of one output are summed on the way in
    for (ValueId o : l.outputs) {
      const auto& g = grads[static_cast<std::size_t>(o)];
      upstream.insert(upstream.end(), g.begin(), g.end());
      if (g.size() > 1) accumulate += static_cast<double>(g.size() - 1) * bytes(o) / elem_;
    }
    if (upstream.empty() && !l.is_loss) continue; // does not contribute to the loss
    if (l.is_loss) upstream = l.outputs; // `loss.backward()` starts from the loss the forward pass computed
    if (l.pass_through) { // every input's gradient is the output's, one tensor that the inputs share
      const ValueId g = summed_gradient(l, upstream);
      for (std::size_t k = 0; k < l.inputs.size(); ++k)
        if (l.differentiable[k] && values_[static_cast<std::size_t>(l.inputs[k])].requires_grad)
          grads[static_cast<std::size_t>(l.inputs[k])].push_back(g);
      continue;
    }
    std::vector<ValueId> saved = l.saved == Saved::Inputs   ? l.inputs
                                 : l.saved == Saved::Output ? l.outputs
                                                            : std::vector<ValueId>{};
    if (l.recompute_block >= 0) { // the block runs again first; its gradient ops read the new values
      if (recomputed_blocks.insert(l.recompute_block).second) recompute(l.recompute_block, upstream, copies);
      for (ValueId& v : saved)
        if (auto it = copies.find(v); it != copies.end()) v = it->second;
    }
    const double upstream_bytes = bytes_of(upstream);
    const double own_weight_bytes = (l.weights > 0         ? l.weights
                                     : l.weight_owner >= 0 ? layers_[layer_of_op_[l.weight_owner]].weights
                                                           : 0) *
                                    elem_;

    std::vector<ValueId> grad_inputs;
    for (std::size_t k = 0; k < l.inputs.size(); ++k)
      if (l.differentiable[k] && values_[static_cast<std::size_t>(l.inputs[k])].requires_grad)
        grad_inputs.push_back(l.inputs[k]);
    if (!grad_inputs.empty() && !l.operand_grad_dims.empty()) {
      emit_operand_grads(l, upstream, saved, accumulate, grads);
    } else if (!grad_inputs.empty()) {
      auto h = b_.op(l.name + (l.weights > 0 || l.weight_owner >= 0 ? ".dgrad" : ".bwd"));
      const std::vector<ValueId> reads = l.data_grad_reads_saved ? saved : std::vector<ValueId>{};
      h.kind(l.data_grad_kind).precision(options_.precision).flops(l.data_grad_flops + accumulate);
      h.reads(upstream_bytes + bytes_of(reads) + own_weight_bytes).writes(bytes_of(grad_inputs));
      if (!l.data_grad_dims.empty()) b_.mutable_op(h.id()).dims = l.data_grad_dims;
      for (ValueId g : upstream)
        use(g, h.id());
      for (ValueId s : reads)
        use(s, h.id());
      for (ValueId v : grad_inputs)
        grads[static_cast<std::size_t>(v)].push_back(
            new_value(h.id(), bytes(v),
                      b_.mutable_op(h.id()).name + ":d" + values_[static_cast<std::size_t>(v)].name, true));
    }
    if (l.weights > 0 || l.weight_owner >= 0) {
      const OpId owner = l.weight_owner >= 0 ? l.weight_owner : l.op;
      const double bias = options_.separate_bias_grads ? layers_[layer_of_op_[owner]].bias : 0;
      if (bias > 0) weight_grads[owner].push_back(emit_bias_grad(l, bias, upstream));
      auto h = b_.op(l.name + ".wgrad");
      const double grad_bytes = own_weight_bytes - bias * elem_;
      h.kind(l.weight_grad_kind)
          .precision(options_.precision)
          .flops(l.weight_grad_flops - (bias > 0 ? bytes_of(l.outputs) / elem_ : 0) +
                 (grad_inputs.empty() ? accumulate : 0));
      h.reads(upstream_bytes + bytes_of(saved)).writes(grad_bytes);
      if (!l.weight_grad_dims.empty()) b_.mutable_op(h.id()).dims = l.weight_grad_dims;
      for (ValueId g : upstream)
        use(g, h.id());
      for (ValueId s : saved)
        use(s, h.id());
      add_weight_grad(weight_grads[owner], new_value(h.id(), grad_bytes, l.name + ":dW", true),
                      layers_[layer_of_op_[owner]].name);
    }
  }
  emit_updates(weight_grads, forward_layers);
}

ValueId LayerGraph::emit_bias_grad(const Layer& l, double bias, const std::vector<ValueId>& upstream) {
  // db = dY summed over its rows: one read of the output gradient, one add per element. Where several
  // consumers gave contributions, the layer's other gradient ops count their sum (autograd adds them first).
  const double elements = bytes_of(l.outputs) / elem_;
  auto h = b_.op(l.name + ".bgrad");
  h.kind("reduce").precision(options_.precision).flops(elements);
  h.reads(elements * elem_).writes(bias * elem_);
  for (ValueId g : upstream)
    use(g, h.id());
  return new_value(h.id(), bias * elem_, l.name + ":db", true);
}

Graph LayerGraph::finish() && {
  if (options_.training) emit_backward();
  for (const Value& v : values_)
    if (!v.consumers.empty()) {
      std::vector<OpId> consumers = v.consumers;
      std::sort(consumers.begin(), consumers.end());
      b_.tensor(v.name, v.bytes, v.producer, consumers);
    }
  Graph g = std::move(b_).build();
  if (options_.eager_issue) charge_eager_issue(g, options_.training);
  if (!options_.device_kind.empty())
    for (Op& op : g.ops)
      op.allowed_kinds = {options_.device_kind};
  return g;
}

} // namespace hs::layers
