// A value's gradient is one tensor, as autograd keeps it: down a residual stream each add passes its
// output's gradient to its inputs as the same tensor, and a "<add>.gradsum" op sums it once where the
// stream's value also feeds a block. So a training graph's gradient tensors, their bytes and the gradient
// memory live at the peak grow linearly with depth (one gradient per value), not with its square.
#include "parallel_support.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/gpt2.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/layers.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <string>

namespace {

using namespace hs;

constexpr double rows = 64, width = 256, vocab = 512, elem = 4; // fp32
constexpr double residual_bytes = rows * width * elem;
constexpr double logits_bytes = rows * vocab * elem;

// "b<i><tail>": append, as GCC 12's -Wrestrict misfires on a literal + std::string.
std::string block(int i, const char* tail = "") {
  std::string out = "b";
  return out.append(std::to_string(i)).append(tail);
}

// embed -> L x (x + fc(ln(x))) -> head -> loss, trained in fp32.
Graph residual_stack(int blocks) {
  layers::LayerGraph g("residual-stack", {1, "fp32", true});
  layers::ValueId x = g.linear("embed", g.input("tokens", residual_bytes), rows, width, width);
  for (int i = 1; i <= blocks; ++i) {
    const auto h =
        g.linear(block(i, ".fc"), g.layernorm(block(i, ".ln"), x, rows, width), rows, width, width);
    x = g.add(block(i, ".residual"), {x, h}, rows * width);
  }
  g.loss("loss", g.linear("head", x, rows, width, vocab), rows, vocab);
  return std::move(g).finish();
}

bool data_gradient_op(const std::string& name) {
  return has_suffix(name, ".dgrad") || has_suffix(name, ".bwd") || has_suffix(name, ".gradsum");
}

struct Gradients {
  int tensors = 0;
  double bytes = 0;
};

// The tensors backward ops write for forward values (weight gradients apart).
Gradients data_gradients(const Graph& g) {
  Gradients out;
  for (TensorId t = 0; t < g.tensor_count(); ++t)
    if (data_gradient_op(g.op(g.tensor(t).producer).name)) {
      ++out.tensors;
      out.bytes += g.tensor(t).bytes;
    }
  return out;
}

struct PeakGradients {
  double data = 0, weights = 0;
};

// Gradient bytes live at the peak of a one-GPU replay of `g` in topological order, by the rule
// sim/memory.hpp gives: a tensor lives from its producer's start until its last reader's end.
PeakGradients at_peak(const Graph& g) {
  const Platform& p = test::gpu_node();
  const CostModel cost(g, p);
  const DeviceId gpu = *p.find_device("gpu0");
  Plan plan = Plan::empty(g.op_count(), p, "one-gpu");
  for (OpId o : g.topological_order())
    plan.append(o, gpu, 0);
  const Execution e = run_simgrid(plan, cost);
  const MemoryUsage m = memory_usage(plan, cost, e);
  const double when = m.peak_time.at(static_cast<std::size_t>(gpu));
  PeakGradients out;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& x = g.tensor(t);
    double last = 0;
    for (OpId c : x.consumers)
      last = std::max(last, e.ops[static_cast<std::size_t>(c)].end);
    if (e.ops[static_cast<std::size_t>(x.producer)].start > when || last <= when) continue;
    const std::string& name = g.op(x.producer).name;
    if (data_gradient_op(name)) out.data += x.bytes;
    if (has_suffix(name, ".wgrad")) out.weights += x.bytes;
  }
  return out;
}

double backward_flops(const Graph& g) {
  const OpRoles r = roles_of(g);
  double s = 0;
  for (OpId o = 0; o < g.op_count(); ++o)
    if (r.pass[static_cast<std::size_t>(o)] == Pass::Backward) s += g.op(o).flops;
  return s;
}

} // namespace

TEST_CASE("residual stack: one gradient tensor per value, summed once per add") {
  for (int blocks : {8, 16}) {
    CAPTURE(blocks);
    const Graph g = residual_stack(blocks);
    const double L = blocks;
    // loss.bwd (logits), head.dgrad (x_L, passed through add L as it is), and per block fc.dgrad and
    // ln.dgrad; adds 1..L-1 sum two contributions each (the stream's and the block's).
    const Gradients d = data_gradients(g);
    CHECK(d.tensors == 3 * blocks + 1);
    CHECK(d.bytes == doctest::Approx(logits_bytes + 3 * L * residual_bytes));
    int sums = 0;
    for (OpId o = 0; o < g.op_count(); ++o) {
      const Op& op = g.op(o);
      if (!has_suffix(op.name, ".gradsum")) continue;
      ++sums;
      CAPTURE(op.name);
      const int i = std::stoi(op.name.substr(1));
      // Exactly the two contributions of x_i: the gradient of x_(i+1) and what block i+1's norm sends back.
      std::vector<std::string> from;
      for (TensorId t : op.inputs)
        from.push_back(g.op(g.tensor(t).producer).name);
      std::sort(from.begin(), from.end());
      CHECK(from ==
            std::vector<std::string>{block(i + 1, ".ln.dgrad"),
                                     i + 1 == blocks ? "head.dgrad" : block(i + 1, ".residual.gradsum")});
      CHECK(op.kind == "elementwise");
      CHECK(op.flops == rows * width);
      CHECK(op.bytes_read == 2 * residual_bytes);
      CHECK(op.bytes_written == residual_bytes);
      CHECK(roles_of(g).owner[static_cast<std::size_t>(o)] ==
            *std::find_if(g.topological_order().begin(), g.topological_order().end(),
                          [&](OpId x) { return g.op(x).name == block(i, ".residual"); }));
    }
    CHECK(sums == blocks - 1);
    // Backward FLOPs from layers.cpp's conventions: loss 2/element, linear dX 2mnk and dW 2mnk + bias,
    // layer norm dX 10 and dW 3 per element; the sums add one per element at adds 1..L-1 and at the
    // embedding's weight gradient (x_0 feeds block 1 and add 1). No other value has two gradients.
    const double gemm = 2 * rows * width * width, n = rows * width;
    const double expected = 2 * rows * vocab + (4 * rows * width * vocab + rows * vocab) +
                            L * (2 * gemm + n + 13 * n) + (gemm + n) + (L - 1) * n + n;
    CHECK(backward_flops(g) == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("residual stack: gradient memory at the one-GPU peak does not grow with depth") {
  const PeakGradients shallow = at_peak(residual_stack(8)), deep = at_peak(residual_stack(16));
  // One op runs at a time, so at most one gradsum's two contributions and its sum are live with the
  // logits' gradient (read by the head's two gradient ops): 3 residual gradients, whatever the depth.
  // Before the fix every later backward op wrote its own copy for each earlier residual value.
  // The peak is in the backward pass (all weight gradients waiting for Adam, below), at the embedding's
  // weight gradient, which reads x_0's two contributions: there were depth + 1 of them before the fix.
  for (const PeakGradients& p : {shallow, deep}) {
    CHECK(p.data > 0);
    CHECK(p.data <= logits_bytes + 3 * residual_bytes);
  }
  CHECK(deep.data == shallow.data);
  // Weight gradients live until the optimizer reads them: at most all of them (embed, blocks, head), and
  // as many as the weights of the shallow stack at least (the deep one's are all live here).
  const double weights = [](double blocks) {
    return elem *
           ((width * width + width) + blocks * (2 * width + width * width + width) + (width * vocab + vocab));
  }(16);
  CHECK(deep.weights <= weights);
  CHECK(deep.weights > shallow.weights);
}

TEST_CASE("gpt2 training: gradient tensors and bytes grow linearly with the layer count") {
  const auto build = [](long long depth) {
    Gpt2Options o = gpt2_preset("small");
    o.layers = depth;
    o.seq = 32;
    o.model = {1, "fp32", true};
    return data_gradients(gpt2(o));
  };
  const Gradients l12 = build(12), l24 = build(24), l36 = build(36);
  // Linear: each further 12 layers add the same tensors and bytes (quadratic growth would add more).
  CHECK(l36.tensors - l24.tensors == l24.tensors - l12.tensors);
  CHECK(l36.bytes - l24.bytes == doctest::Approx(l24.bytes - l12.bytes));
  const double ratio = static_cast<double>(l24.tensors) / l12.tensors;
  CHECK(ratio > 1.8); // about 2 (fixed tensors of the embedding and head aside); quadratic growth gives more
  CHECK(ratio < 2.0);
  CHECK(l24.bytes / l12.bytes < 2.0);
}
