// Gradient clipping by the global norm (clip=norm), as torch.nn.utils.clip_grad_norm_ runs it: known answers
// from the parameter count, the barrier the total norm makes, data parallelism, and the combinations refused.
#include "graph_lookup.hpp"
#include "sim/error.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <set>
#include <string>
#include <vector>

using hs::load_workload;
using hs::test::op_named;

namespace {

constexpr double kFp32 = 4;
// torchvision's resnet18: 11,689,512 parameters (its published model card, torchvision.models.resnet18).
constexpr double kResnet18Parameters = 11'689'512;

struct Totals {
  int ops = 0;
  double reads = 0, writes = 0, flops = 0;
};

Totals ops_ending(const hs::Graph& g, const std::string& tail) {
  Totals t;
  for (const hs::Op& op : g.ops)
    if (hs::has_suffix(op.name, tail)) {
      ++t.ops;
      t.reads += op.bytes_read;
      t.writes += op.bytes_written;
      t.flops += op.flops;
    }
  return t;
}

// Every op `from` reaches through the graph's edges.
std::set<hs::OpId> reachable_from(const hs::Graph& g, hs::OpId from) {
  std::set<hs::OpId> seen;
  std::vector<hs::OpId> stack = {from};
  while (!stack.empty()) {
    const hs::OpId o = stack.back();
    stack.pop_back();
    for (hs::OpId s : g.successors(o))
      if (seen.insert(s).second) stack.push_back(s);
  }
  return seen;
}

} // namespace

TEST_CASE("clip=norm reads every gradient twice and writes it once: 12 bytes per fp32 parameter") {
  const hs::Graph plain = load_workload("resnet18:mode=training");
  const hs::Graph clipped = load_workload("resnet18:mode=training,clip=norm");
  REQUIRE(hs::summarize(clipped).parameters == kResnet18Parameters);
  const Totals norms = ops_ending(clipped, ".grad_norm"), scales = ops_ending(clipped, ".clip");
  const Totals updates = ops_ending(clipped, ".adam");
  CHECK(norms.ops == updates.ops);
  CHECK(scales.ops == updates.ops);
  CHECK(norms.reads == kResnet18Parameters * kFp32);
  CHECK(norms.flops == 2 * kResnet18Parameters); // a square and an add per element
  CHECK(scales.writes == kResnet18Parameters * kFp32);
  CHECK(scales.reads == (kResnet18Parameters + scales.ops) * kFp32); // each also reads the coefficient
  CHECK(scales.flops == kResnet18Parameters);
  // One norm per parameter tensor: a layer's weight, and its bias where it has one.
  double tensors = 0;
  for (const hs::Op& op : clipped.ops)
    if (hs::has_suffix(op.name, ".grad_norm")) tensors += op.bytes_written / kFp32;
  CHECK(tensors == 62); // torchvision: 20 convolutions, 20 batch norms (scale, shift), the classifier (2)
  CHECK(op_named(clipped, "grad_clip.stack").bytes_read == tensors * kFp32);
  CHECK(op_named(clipped, "grad_clip.total_norm").flops == 2 * tensors);
  CHECK(op_named(clipped, "grad_clip.clamp").bytes_written == kFp32);
  // The optimizer reads the clipped gradient in place of the raw one: the same bytes, so its ops are
  // unchanged, and the step gains the five scalar kernels besides two ops per weight-owning layer.
  CHECK(ops_ending(plain, ".adam").reads == updates.reads);
  CHECK(clipped.op_count() - plain.op_count() == 2 * updates.ops + 5);
}

TEST_CASE("clip=norm: no weight is updated before every gradient's norm is in the total") {
  const hs::Graph g = load_workload("gpt2-small:mode=training,heads=fused,batch=1,seq=16,clip=norm");
  const hs::OpId clamp = *g.find_op("grad_clip.clamp");
  const std::set<hs::OpId> after = reachable_from(g, clamp);
  const hs::OpId stack = *g.find_op("grad_clip.stack");
  const hs::OpRoles roles = hs::roles_of(g);
  int updates = 0;
  for (hs::OpId o = 0; o < g.op_count(); ++o) {
    const hs::Op& op = g.op(o);
    const auto at = static_cast<std::size_t>(o);
    if (op.kind == "optimizer") {
      ++updates;
      CHECK_MESSAGE(after.contains(o), op.name);
    }
    if (hs::has_suffix(op.name, ".grad_norm")) {
      CHECK_MESSAGE(reachable_from(g, o).contains(stack), op.name);
      CHECK(roles.pass[at] == hs::Pass::Optimizer);
      CHECK(g.op(roles.owner[at]).name + ".grad_norm" == op.name);
    }
    if (op.name.starts_with(hs::kGradientClipPrefix)) CHECK(roles.pass[at] == hs::Pass::Optimizer);
  }
  // GPT-2's LM head is tied to the token embedding: one update, and one norm, for both.
  CHECK(updates == ops_ending(g, ".grad_norm").ops);
  CHECK_FALSE(g.find_op("lm_head.grad_norm").has_value());
  // The tied table's two gradients (the embedding's backward writes the whole table) are summed into its
  // one `.grad` first: the norm reads that once.
  CHECK(op_named(g, "wte.grad_norm").bytes_read == 50257.0 * 768 * kFp32);
}

TEST_CASE("clip=norm is refused where it has no meaning and by ZeRO") {
  CHECK_THROWS_WITH_AS(load_workload("resnet18:clip=norm"), doctest::Contains("mode=training"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:mode=training,precision=fp16,optimizer=megatron,clip=norm"),
                       doctest::Contains("clip=off"), hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("resnet18:mode=training,clip=max"), doctest::Contains("clip"),
                       hs::InputError);
  const hs::Graph clipped = load_workload("resnet18:mode=training,clip=norm");
  hs::DataParallelOptions zero;
  zero.devices = {"gpu0", "gpu1"};
  zero.zero_stage = 1;
  CHECK_THROWS_WITH_AS(hs::data_parallel(clipped, zero), doctest::Contains("grad_clip."),
                       std::invalid_argument);
}

TEST_CASE("clip=norm under data parallelism: every replica clips the all-reduced gradients, as DDP does") {
  const hs::Graph step = load_workload("resnet18:mode=training,clip=norm");
  hs::DataParallelOptions dp;
  dp.devices = {"gpu0", "gpu1"};
  const hs::Graph both = hs::data_parallel(step, dp);
  const hs::Graph plain = hs::data_parallel(load_workload("resnet18:mode=training"), dp);
  // The same buckets all-reduce the same bytes: clipping moves no gradient between replicas.
  double reduced = 0, reduced_plain = 0;
  for (const hs::Tensor& t : both.tensors)
    if (hs::has_suffix(t.name, ".gradient")) reduced += t.bytes;
  for (const hs::Tensor& t : plain.tensors)
    if (hs::has_suffix(t.name, ".gradient")) reduced_plain += t.bytes;
  CHECK(reduced == kResnet18Parameters * kFp32 * 2); // one whole gradient for each of the two replicas
  CHECK(reduced == reduced_plain);
  for (const std::string r : {"r0/", "r1/"}) {
    // A weight's norm and its scale both read the all-reduce's result; the update reads the scaled
    // gradient of its own replica.
    const hs::Op& norm = op_named(both, r + "fc.grad_norm");
    const hs::Op& scale = op_named(both, r + "fc.clip");
    const hs::Op& update = op_named(both, r + "fc.adam");
    for (const hs::Op* reader : {&norm, &scale}) {
      bool from_collective = false;
      for (hs::TensorId t : reader->inputs)
        from_collective |= both.op(both.tensor(t).producer).kind == "collective";
      CHECK_MESSAGE(from_collective, reader->name);
    }
    REQUIRE(update.inputs.size() == 1);
    CHECK(both.op(both.tensor(update.inputs[0]).producer).name == r + "fc.clip");
    // Each replica computes the same norm from the same gradients, on its own device.
    CHECK(op_named(both, r + "grad_clip.total_norm").allowed_devices ==
          std::vector<std::string>{r == "r0/" ? "gpu0" : "gpu1"});
  }
  CHECK(both.op_count() - plain.op_count() ==
        2 * (step.op_count() - load_workload("resnet18:mode=training").op_count()));
}

TEST_CASE(
    "clip=norm in a pipeline: each stage's norms go to the first stage, which sends the coefficient back") {
  const hs::Graph step = load_workload("gpt2-small:mode=training,heads=fused,batch=4,seq=16,clip=norm");
  hs::PipelineOptions pp;
  pp.devices = {"gpu0", "gpu1"};
  pp.microbatches = 4;
  const hs::Graph g = hs::pipeline_parallel(step, pp);
  // The optimizer pass runs once, after every micro-batch's gradient: the norm reads the gradient the last
  // micro-batch's backward op accumulated into.
  const hs::Op& first = op_named(g, "h0.attn.q.grad_norm");
  REQUIRE_FALSE(first.inputs.empty());
  for (hs::TensorId t : first.inputs)
    CHECK(g.op(g.tensor(t).producer).name.starts_with("m3/"));
  CHECK_FALSE(g.find_op("m0/h0.attn.q.grad_norm").has_value());
  // A layer's norm and scale stay on its stage; the coefficient's chain runs on the first stage, whose
  // backward pass ends last, and the other stages send it their norms.
  CHECK(first.allowed_devices == std::vector<std::string>{"gpu0"});
  CHECK(op_named(g, "h0.attn.q.clip").allowed_devices == std::vector<std::string>{"gpu0"});
  CHECK(op_named(g, "ln_f.grad_norm").allowed_devices == std::vector<std::string>{"gpu1"});
  for (const char* chain : {"grad_clip.stack", "grad_clip.clamp"})
    CHECK(op_named(g, chain).allowed_devices == std::vector<std::string>{"gpu0"});
  // Gradient accumulation on one device: the same ops once, all on it.
  pp.devices = {"gpu0"};
  const hs::Graph accumulated = hs::pipeline_parallel(step, pp);
  CHECK(ops_ending(accumulated, ".grad_norm").ops == ops_ending(step, ".grad_norm").ops);
  CHECK(ops_ending(accumulated, ".clip").ops == ops_ending(step, ".clip").ops);
}

TEST_CASE("clip=norm under tensor parallelism: shard norms, their partial sums all-reduced, every rank "
          "scales its shard") {
  const hs::Graph step = load_workload("gpt2-small:mode=training,heads=fused,batch=2,seq=16,clip=norm");
  for (const bool vocabulary : {false, true}) {
    CAPTURE(vocabulary);
    hs::TensorParallelOptions tp;
    tp.devices = {"gpu0", "gpu1"};
    tp.split_vocabulary = vocabulary;
    const hs::Graph g = hs::tensor_parallel(step, tp);
    // A split layer's norm and scale cover its shard; a replicated layer's (a layer norm) the whole of it.
    CHECK(op_named(g, "t1/h0.mlp.fc1.grad_norm").flops == op_named(step, "h0.mlp.fc1.grad_norm").flops / 2);
    CHECK(op_named(g, "t1/h0.mlp.fc1.clip").bytes_written ==
          op_named(step, "h0.mlp.fc1.clip").bytes_written / 2);
    CHECK(op_named(g, "t1/ln_f.grad_norm").flops == op_named(step, "ln_f.grad_norm").flops);
    // The chain runs whole on each rank, and reads the shards' norms through one all-reduce.
    for (const std::string r : {"t0/", "t1/"}) {
      const hs::Op& stack = op_named(g, r + "grad_clip.stack");
      CHECK(stack.flops == op_named(step, "grad_clip.stack").flops);
      CHECK(stack.allowed_devices == std::vector<std::string>{r == "t0/" ? "gpu0" : "gpu1"});
      int from_collective = 0;
      for (hs::TensorId t : stack.inputs)
        from_collective += g.op(g.tensor(t).producer).kind == "collective";
      CHECK(from_collective == 1);
    }
    // The embedding's norm is a shard's only where the vocabulary is split.
    const double wte = op_named(step, "wte.grad_norm").flops;
    CHECK(op_named(g, "t0/wte.grad_norm").flops == (vocabulary ? wte / 2 : wte));
  }
}
