#pragma once
// Shared layer arithmetic for the model builders. A model is written once, as its forward pass, through
// LayerGraph; in training mode finish() derives the backward pass (a data-gradient op and, for layers with
// weights, a weight-gradient op per layer) and an Adam update per weight tensor. Backward ops read the
// forward values they need, so those activations stay alive until their backward use, as in a real
// framework.
//
// FLOPs count a multiply-add as 2 FLOPs. Bytes are what the op reads and writes at the element size of
// the model's precision; weights count as read by every op that uses them and as resident (param bytes)
// on the op that owns them.
#include "sim/graph.hpp"
#include "sim/graph_builder.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::layers {

double element_bytes(const std::string& precision);

// How the weights are updated in training.
enum class Optimizer {
  Adam,    // one fused Adam pass per weight tensor (fp32 moments; an fp32 master copy under fp16/bf16)
  Foreach, // PyTorch's AdamW without fused=True: a pass over the weights per arithmetic step
  Megatron // Megatron-LM's Float16OptimizerWithFloat16Params: what every pass of its step() moves
};

// How the cross-entropy that ends a training graph runs (LayerGraph::loss).
enum class Loss {
  Fused,   // one pass over the logits each way
  Eager,   // F.cross_entropy in eager PyTorch: log_softmax, then nll_loss
  Megatron // Megatron-LM's vocab_parallel_cross_entropy on the logits cast to fp32
};

struct ModelOptions {
  long long batch = 1;
  std::string precision = "fp32";
  bool training = false;
  Optimizer optimizer = Optimizer::Adam;
  Loss loss = Loss::Fused;
  // Training: each bias's gradient within its weight-gradient GEMM (false: a fused epilogue, as
  // Transformer Engine's cuBLASLt BGRADB), or as a reduction of its own over the output gradient,
  // "<layer>.bgrad", as PyTorch's autograd sums addmm's gradient down to the bias (and cuDNN's backward-bias
  // call for a convolution).
  bool separate_bias_grads = false;
  // Training: torch.nn.utils.clip_grad_norm_ before the optimizer step, as Hugging Face's Trainer runs it
  // (max_grad_norm 1 by default): a norm per gradient tensor, their total, a coefficient, and every
  // gradient scaled by it in place (PyTorch scales even when the coefficient clamps to 1, to spare a host
  // sync). The total is a barrier: no weight is updated before every gradient exists.
  bool clip_grad_norm = false;
  // Every op costs its host eager PyTorch's measured time to issue it (workloads/eager_issue.hpp); false:
  // none, as a compiled or graph-captured program issues its kernels ahead of the device.
  bool eager_issue = false;
  // Every op may run only on a device of this kind, as a framework program moved to one device
  // (`model.to("cuda")`) runs each of its ops there; empty: any kind, a scheduler's choice.
  std::string device_kind = "";
};

using ValueId = int;

// Which forward values a backward op reads besides the incoming gradient.
enum class Saved { Inputs, Output, Nothing };

class LayerGraph {
public:
  LayerGraph(std::string graph_name, ModelOptions options);

  double elem() const { return elem_; }
  long long batch() const { return options_.batch; }
  bool training() const { return options_.training; }

  // A graph input (image, token ids, edge list) of `bytes`; never differentiated.
  ValueId input(const std::string& name, double bytes);

  // Layers with weights take `weights_from`: empty, the layer owns its weights (resident on its op, counted
  // as parameters, updated by its own optimizer op); else the name of the layer whose weights it reuses
  // (tied embeddings, decode steps), which keeps them and receives their gradient.

  // y[rows, out] = x[rows, in] W[in, out] (+ b), x given as column blocks (concatenated heads). `parts` > 1
  // splits the output by columns into that many values (attention heads) so each consumer reads its slice.
  std::vector<ValueId> linear_parts(const std::string& name, const std::vector<ValueId>& x, double rows,
                                    double in, double out, bool bias, int parts,
                                    const std::string& weights_from = "");
  ValueId linear(const std::string& name, ValueId x, double rows, double in, double out, bool bias = true,
                 const std::string& weights_from = "") {
    return linear_parts(name, {x}, rows, in, out, bias, 1, weights_from)[0];
  }
  // The linear layer `name` with its weights stored [in, out], as Hugging Face's Conv1D (GPT-2) stores
  // them (Y = X W), not [out, in] as nn.Linear does: the same FLOPs through other BLAS calls, the forward
  // without a transposed operand and dX = dY W^T with one.
  void store_weights_in_out(const std::string& name);

  struct Conv {
    long long channels_in, height, width, channels_out, kernel, stride, padding;
    long long out_height() const { return (height + 2 * padding - kernel) / stride + 1; }
    long long out_width() const { return (width + 2 * padding - kernel) / stride + 1; }
  };
  ValueId conv2d(const std::string& name, ValueId x, const Conv& c, bool bias = false);

  // Normalisations with a learned scale and shift of `channels` (BatchNorm) or `width` (LayerNorm).
  ValueId batchnorm(const std::string& name, ValueId x, double elements, double channels);
  ValueId layernorm(const std::string& name, ValueId x, double rows, double width,
                    const std::string& weights_from = "");

  // Pointwise ops. `flops_per_element` counts one output element; `saved` says what backward reads.
  ValueId elementwise(const std::string& name, const std::vector<ValueId>& x, double elements,
                      double flops_per_element, Saved saved);
  // Sum of same-shaped inputs (residual): its gradient passes straight through to every input as one
  // shared tensor; a "<name>.gradsum" op first adds the output's gradients when it has several.
  ValueId add(const std::string& name, const std::vector<ValueId>& x, double elements);
  ValueId softmax(const std::string& name, ValueId x, double rows, double width);

  // Batched product of two activations (attention scores, context): `count` products of [m,k] x [k,n],
  // b stored [n,k] when `b_transposed` (the keys in Q K^T).
  ValueId matmul(const std::string& name, ValueId a, ValueId b, double count, double m, double n, double k,
                 bool b_transposed, const std::string& kind = "attention");

  ValueId pooling(const std::string& name, ValueId x, double in_elements, double out_elements, double window,
                  bool max_pool);
  // Table lookup: `rows` rows of `width` from a [vocab, width] table (weights owned by this op).
  ValueId embedding(const std::string& name, ValueId ids, double rows, double vocab, double width,
                    const std::string& weights_from = "");
  // Edge-wise read of node features (gather) and edge-to-node reduction (scatter-add).
  ValueId gather(const std::string& name, ValueId features, ValueId index, double edges, double width);
  ValueId scatter(const std::string& name, ValueId messages, ValueId index, double edges, double nodes,
                  double width);
  // A reduction over `elements` to `out_elements` (argmax for sampling, pooler CLS slice...).
  ValueId reduce(const std::string& name, const std::vector<ValueId>& x, double elements,
                 double out_elements);
  // An inference-only op with several outputs and no gradient (KV-cache append): explicit costs.
  std::vector<ValueId> custom(const std::string& name, const std::string& kind, const std::vector<ValueId>& x,
                              double flops, double bytes_read, double bytes_written,
                              const std::vector<double>& outputs);
  // Softmax cross-entropy over [rows, classes]; the start of the backward pass in training. As
  // ModelOptions::loss says: Fused, one op "<name>". Eager, "<name>.log_softmax" writes the
  // log-probabilities and "<name>" (nll_loss) picks the target's per row; backward, nll_loss's gradient is
  // written whole (zeros and -1/rows at the targets) and log_softmax's reads it with the log-probabilities.
  // Megatron, on the logits cast to fp32: "<name>.float" (the cast), "<name>.softmax" (in place on the
  // fp32 copy: max, subtract, exp, sum, divide; it writes each row's partial max, target logit and sum)
  // and "<name>" (log-sum minus the target logit per row, from those partials: what a split vocabulary
  // all-reduces).
  ValueId loss(const std::string& name, ValueId logits, double rows, double classes);

  double bytes(ValueId v) const { return values_[static_cast<std::size_t>(v)].bytes; }

  // Training, activation checkpointing (Chen et al. 2016): with true, the layers added from here until
  // the next call form one checkpointed block; false ends it. When the backward pass reaches a block, its
  // layers (but pass-through adds) run forward again, reading the block's inputs and the adds' outputs as
  // saved in the forward pass and each other's recomputed values; the block's gradient ops read the
  // recomputed values. So a block keeps only those inputs between its forward and backward passes, and
  // its other activations live again only while its backward pass runs.
  void recompute_layers(bool on) { recompute_block_ = on ? ++blocks_ : -1; }

  // Parameters (elements) owned by the model's ops, counted once.
  double parameter_count() const { return parameters_; }

  // Training: derives backward and optimizer ops. Then makes one tensor per value and builds the graph.
  Graph finish() &&;

private:
  struct Value {
    OpId producer;
    double bytes;
    std::string name;
    std::vector<OpId> consumers;
    bool requires_grad;
  };
  struct Layer {
    OpId op;
    std::string name;
    std::string kind;
    std::vector<ValueId> inputs;
    std::vector<ValueId> outputs;
    double flops = 0;
    double weights = 0;        // weight elements owned (0: none)
    double bias = 0;           // of which a bias's
    OpId weight_owner = -1;    // tied weights: the layer op that owns and updates them
    bool pass_through = false; // gradient goes to the inputs unchanged (residual add)
    bool is_loss = false;
    int recompute_block = -1; // the checkpointed block it belongs to (recompute_layers), or -1
    Saved saved = Saved::Inputs;
    bool data_grad_reads_saved = true; // false for linear/conv: dX needs only dY and the weights
    double data_grad_flops = 0;        // backward FLOPs for the input gradients
    double weight_grad_flops = 0;
    std::string data_grad_kind, weight_grad_kind;
    // The GEMMs the gradients are (a linear layer's dX = dY W^T and dW = X^T dY; a convolution's dims with
    // its "pass"), in the forward op's dims names: what lets a size-aware cost model cost the backward pass
    // as it does the forward one. Empty where the gradient is no single GEMM.
    std::map<std::string, double> data_grad_dims, weight_grad_dims;
    // A product of two activations: each operand's gradient is a GEMM of its own (dA = dC B^T, dB = A^T dC),
    // run as two kernels, so each is an op ("<layer>.bwd", "<layer>.bwd_rhs") with its dims.
    std::vector<std::map<std::string, double>> operand_grad_dims;
    std::vector<bool> differentiable; // per input: does the gradient flow into it (index tensors: no)
  };

  ValueId new_value(OpId producer, double bytes, const std::string& name, bool requires_grad);
  void use(ValueId v, OpId consumer);
  bool any_requires_grad(const std::vector<ValueId>& x) const;
  double bytes_of(const std::vector<ValueId>& x) const;
  Layer& add_layer(OpHandle h, std::string kind, std::vector<ValueId> inputs, double flops);
  ValueId single_output(Layer& layer, double bytes, bool requires_grad);
  void name_dims(const Layer& layer, std::map<std::string, double> dims);
  // Gives `layer` its weights or points it at the owner's; adds the weight bytes to what the op reads.
  void attach_weights(Layer& layer, double weights, const std::string& weights_from, bool read_all = true);
  ValueId fused_loss(const std::string& name, ValueId logits, double rows, double classes);
  ValueId eager_loss(const std::string& name, ValueId logits, double rows, double classes);
  ValueId fp32_vocab_loss(const std::string& name, ValueId logits, double rows, double classes);
  void emit_backward();
  // A bias's own gradient op ("<layer>.bgrad", ModelOptions::separate_bias_grads), reading `upstream`.
  ValueId emit_bias_grad(const Layer& l, double bias, const std::vector<ValueId>& upstream);
  // Adds weight gradient `dW` to its owner's: as a new tensor, or summed into the owner's earlier one by a
  // new "<owner>.gradacc" op (tied weights; weight_gradients.cpp).
  void add_weight_grad(std::vector<ValueId>& owner_grads, ValueId dW, const std::string& owner_name);
  // One optimizer op per weight-owning layer, reading its weight gradients (optimizer_step.cpp).
  void emit_updates(const std::map<OpId, std::vector<ValueId>>& weight_grads, std::size_t forward_layers);
  // ModelOptions::clip_grad_norm's ops (gradient_clipping.cpp): each layer's gradients as the optimizer
  // then reads them, clipped.
  std::map<OpId, std::vector<ValueId>>
  emit_gradient_clipping(const std::map<OpId, std::vector<ValueId>>& weight_grads,
                         std::size_t forward_layers);
  // `l`'s operands' gradients, one op each (Layer::operand_grad_dims); `saved` are its operands as the
  // backward pass reads them (recomputed copies in a checkpointed block).
  void emit_operand_grads(const Layer& l, const std::vector<ValueId>& upstream,
                          const std::vector<ValueId>& saved, double accumulate,
                          std::vector<std::vector<ValueId>>& grads);
  // The one gradient tensor of pass-through layer `l`'s output from its `contributions`: the only one
  // itself, or the value a new "<layer>.gradsum" op writes by adding them.
  ValueId summed_gradient(const Layer& l, const std::vector<ValueId>& contributions);

  ModelOptions options_;
  double elem_;
  GraphBuilder b_;
  std::vector<Value> values_;
  std::vector<Layer> layers_;
  std::map<OpId, std::size_t> layer_of_op_;
  std::map<std::string, OpId> op_by_name_;
  // Recomputes checkpointed block `block` once `trigger` (the gradient reaching it) exists; `copies` maps
  // each forward value the block produces to its recomputed copy.
  void recompute(int block, const std::vector<ValueId>& trigger, std::map<ValueId, ValueId>& copies);

  double parameters_ = 0;
  int recompute_block_ = -1, blocks_ = 0;
};

} // namespace hs::layers
