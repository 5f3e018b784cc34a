// Megatron-LM's weak-scaling GPT models (Narayanan et al., SC 2021, Table 1) and activation recomputation:
// the sizes, the parameter counts and the FLOPs per iteration the paper gives.
#include "parallel_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace hs;

namespace {

constexpr double seq = 2048, vocab = 51200;

struct Size {
  const char* name;
  double layers, hidden, billions; // Table 1's layers, hidden size, parameters
};
constexpr Size sizes[] = {{"megatron-gpt-1.7b", 24, 2304, 1.7},   {"megatron-gpt-3.6b", 30, 3072, 3.6},
                          {"megatron-gpt-7.5b", 36, 4096, 7.5},   {"megatron-gpt-18.4b", 40, 6144, 18.4},
                          {"megatron-gpt-39.1b", 48, 8192, 39.1}, {"megatron-gpt-76.1b", 60, 10240, 76.1}};

double compute_flops(const Graph& g) {
  double f = 0;
  for (const auto& op : g.ops)
    if (op.kind != "optimizer") f += op.flops;
  return f;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

TEST_CASE("Megatron's GPTs have the paper's parameter counts: 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))") {
  // The formula counts the embeddings, and per layer the four GEMMs' weights and biases and two layer
  // norms; the graph also has the final layer norm.
  for (const Size& s : sizes) {
    const std::string name = s.name;
    CAPTURE(name);
    const Graph g = load_workload(std::string(s.name) + ":mode=training,seq=64");
    double parameters = 0;
    for (const auto& op : g.ops)
      if (op.kind != "optimizer") parameters += op.param_bytes / 4; // fp32
    const double l = s.layers, h = s.hidden;
    const double formula = 12 * l * h * h * (1 + 13 / (12 * h) + (vocab + seq) / (12 * l * h));
    CHECK(parameters - 2 * h == doctest::Approx(formula).epsilon(1e-12)); // + the final layer norm's 2h
    CHECK(parameters / 1e9 == doctest::Approx(s.billions).epsilon(0.03)); // Table 1 rounds
  }
}

TEST_CASE("with full recomputation a step does the paper's 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) FLOPs") {
  const Size& s = sizes[0];
  const double batch = 2, l = s.layers, h = s.hidden;
  const double paper = 96 * batch * seq * l * h * h * (1 + seq / (6 * h) + vocab / (16 * l * h));
  const std::string spec = std::string(s.name) + ":mode=training,precision=fp16,heads=fused,batch=2";
  const Graph plain = load_workload(spec), again = load_workload(spec + ",recompute=full");
  // The paper counts the GEMMs only; the graph adds softmax, layer norms and pointwise ops (under 0.5 %).
  CHECK(compute_flops(again) == doctest::Approx(paper).epsilon(0.005));
  CHECK(compute_flops(again) > paper);
  // Recomputation adds each transformer layer's forward once, and nothing else.
  double forward_in_layers = 0; // the blocks' ops ("h<k>."), residual adds included
  for (const auto& op : plain.ops)
    if (op.name[0] == 'h' && !ends_with(op.name, ".dgrad") && !ends_with(op.name, ".wgrad") &&
        !ends_with(op.name, ".bwd") && !ends_with(op.name, ".bwd_rhs") && !ends_with(op.name, ".gradsum") &&
        !ends_with(op.name, ".adam"))
      forward_in_layers += op.flops;
  CHECK(forward_in_layers > 0.3 * compute_flops(plain));
  CHECK(compute_flops(again) - compute_flops(plain) == doctest::Approx(forward_in_layers).epsilon(1e-9));
}

TEST_CASE("a checkpointed block runs again when its gradient arrives, and its gradient ops read the copies") {
  const Graph g = load_workload("gpt2-small:mode=training,heads=fused,seq=32,recompute=full");
  int recomputed = 0, triggered = 0;
  for (OpId o = 0; o < g.op_count(); ++o) {
    const Op& op = g.op(o);
    if (!ends_with(op.name, ".recompute")) continue;
    ++recomputed;
    const std::string layer = op.name.substr(0, op.name.size() - 10),
                      block = layer.substr(0, layer.find('.'));
    const Op& forward = g.op(*g.find_op(layer));
    CHECK(op.kind == forward.kind);
    CHECK(op.flops == forward.flops);
    CHECK(op.param_bytes == 0);
    bool gradient = false; // it reads the gradient reaching the block, or values of the block or before it
    for (TensorId t : op.inputs) {
      const std::string& from = g.op(g.tensor(t).producer).name;
      gradient = gradient || ends_with(from, ".dgrad") || ends_with(from, ".bwd") ||
                 ends_with(from, ".bwd_rhs") || ends_with(from, ".gradsum");
      if (ends_with(from, ".recompute")) CHECK(from.rfind(block + ".", 0) == 0);
    }
    triggered += gradient;
    for (TensorId t : op.outputs) // read by the block's own recomputation and gradient ops only
      for (OpId c : g.tensor(t).consumers)
        CHECK(g.op(c).name.rfind(block + ".", 0) == 0);
  }
  CHECK(recomputed > 12 * 7);       // every layer of the 12 blocks, the two residual adds included
  CHECK(triggered == 12);           // one start per block
  for (const auto& t : g.tensors) { // a block's inner activations are read by no backward op
    const Op& producer = g.op(t.producer);
    if (producer.name[0] != 'h' || ends_with(producer.name, ".residual") || producer.kind == "optimizer" ||
        producer.name.find(".recompute") != std::string::npos ||
        producer.name.find("grad") != std::string::npos || producer.name.find(".bwd") != std::string::npos)
      continue;
    for (OpId c : t.consumers)
      CHECK_FALSE((ends_with(g.op(c).name, ".dgrad") || ends_with(g.op(c).name, ".wgrad") ||
                   ends_with(g.op(c).name, ".bwd") || ends_with(g.op(c).name, ".bwd_rhs")));
  }
  for (const auto& op : g.ops) { // embeddings, the final norm and the head are not recomputed
    const bool outside_blocks =
        op.name.rfind("wte", 0) == 0 || op.name.rfind("ln_f", 0) == 0 || op.name.rfind("lm_head", 0) == 0;
    CHECK_FALSE((outside_blocks && ends_with(op.name, ".recompute")));
  }
  CHECK_THROWS_WITH(load_workload("gpt2-small:recompute=full"),
                    doctest::Contains("recomputation is for training"));
}

TEST_CASE("recomputation lowers the activations at the peak: a block keeps only its inputs") {
  const Platform& p = test::gpu_node();
  double peak_activations[2] = {0, 0};
  for (int again : {0, 1}) {
    const Graph g = load_workload(std::string("gpt2-small:mode=training,heads=fused,batch=4,seq=256") +
                                  (again ? ",recompute=full" : ""));
    Plan plan = Plan::empty(g.op_count(), p, "one GPU");
    for (OpId o : g.topological_order())
      plan.append(o, *p.find_device("gpu0"));
    const CostModel cost(g, p);
    const MemoryUsage m = memory_usage(plan, cost, run_simgrid(plan, cost));
    peak_activations[again] = m.at_peak[static_cast<std::size_t>(*p.find_device("gpu0"))].activations;
  }
  // Measured: 1,173 MB at the peak without (at the start of the backward pass); with, the peak (2,149 MB
  // against 2,666) moves to the end of the step, where weight gradients fill it and 3.2 MB of activations
  // are left.
  CHECK(peak_activations[1] < 0.7 * peak_activations[0]);
}

TEST_CASE("tensor parallelism splits a recomputed layer as it splits the layer, on the layer's rank") {
  const Graph step = load_workload("gpt2-small:mode=training,heads=fused,seq=32,recompute=full");
  const Graph tp = tensor_parallel(step, {{"gpu0", "gpu1"}});
  int split = 0;
  for (const auto& op : tp.ops) {
    if (!ends_with(op.name, ".recompute")) continue;
    const Op& forward = tp.op(*tp.find_op(op.name.substr(0, op.name.size() - 10)));
    CHECK(op.flops == forward.flops);
    CHECK(op.allowed_devices == forward.allowed_devices);
    split += forward.flops < step.op(*step.find_op(forward.name.substr(3))).flops;
    for (TensorId t : op.inputs) // what it reads is on its rank: no transfer but the step's collectives
      CHECK(tp.op(tp.tensor(t).producer).allowed_devices == op.allowed_devices);
  }
  CHECK(split >=
        2 * 12 * 5); // per rank, the q, k, v, scores, softmax, context, out, fc1, gelu, fc2 of 12 blocks
}
