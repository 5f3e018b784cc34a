// What Megatron-LM's own code moves in a training step beyond the layers: its cross-entropy on an fp32
// copy of the logits (megatron/mpu/cross_entropy.py, called on output.float()) and its fp16 optimizer
// (Float16OptimizerWithFloat16Params.step()), checked against the bytes of each pass counted by hand.
#include "graph_lookup.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace hs;
using hs::test::op_named;

namespace {

double traffic(const Op& op) {
  return op.bytes_read + op.bytes_written;
}

constexpr double batch = 2, seq = 32, vocab = 50257, rows = batch * seq, e = rows * vocab;
const std::string small = "gpt2-small:mode=training,precision=fp16,heads=fused,batch=2,seq=32";

} // namespace

TEST_CASE("Megatron's cross-entropy: a cast, five passes over the fp32 copy, two back, the softmax kept") {
  const Graph g = load_workload(small + ",loss=megatron");
  // Forward, in elements of [rows, vocab]: the cast reads 2 bytes and writes 4; max, subtract, exp, sum
  // and divide read 4 each, and three of them write 4; each row leaves three fp32 partials.
  CHECK(traffic(op_named(g, "loss.float")) == doctest::Approx(6 * e));
  CHECK(traffic(op_named(g, "loss.softmax")) == doctest::Approx(32 * e + 12 * rows));
  CHECK(traffic(op_named(g, "loss")) == doctest::Approx(16 * rows));
  // Backward: the softmax scaled in place by the loss's gradient (4 + 4), then the cast back (4 + 2).
  CHECK(traffic(op_named(g, "loss.softmax.bwd")) == doctest::Approx(8 * e + 12 * rows));
  CHECK(traffic(op_named(g, "loss.float.bwd")) == doctest::Approx(6 * e));
  // The fp32 buffer lives until the backward pass reads it; the fp16 logits only until the cast.
  const Op& cast = op_named(g, "loss.float");
  REQUIRE(cast.outputs.size() == 1);
  const Tensor& copy = g.tensor(cast.outputs.front());
  CHECK(copy.bytes == doctest::Approx(4 * e));
  CHECK(copy.consumers.size() == 2);
  for (OpId c : copy.consumers)
    CHECK((g.op(c).name == "loss.softmax" || g.op(c).name == "loss.softmax.bwd"));
  const Tensor& logits = g.tensor(cast.inputs.front());
  CHECK(logits.consumers.size() == 1);
  // The fused loss moves a sixth as much: one read of the fp16 logits forward, a read and a write back.
  const Graph fused = load_workload(small);
  CHECK(traffic(op_named(fused, "loss")) + traffic(op_named(fused, "loss.bwd")) ==
        doctest::Approx(6 * e + 2 * rows));
}

TEST_CASE("with the vocabulary split, each rank runs its shard's passes and the partials are all-reduced") {
  const Graph step = load_workload(small + ",loss=megatron");
  TensorParallelOptions o;
  o.devices = {"gpu0", "gpu1"};
  o.split_vocabulary = true;
  const Graph tp = tensor_parallel(step, o);
  for (const char* rank : {"t0/", "t1/"}) {
    const std::string r = rank;
    CHECK(op_named(tp, r + "loss.softmax").flops ==
          doctest::Approx(op_named(step, "loss.softmax").flops / 2));
    CHECK(op_named(tp, r + "loss.float").flops == doctest::Approx(op_named(step, "loss.float").flops / 2));
    CHECK(op_named(tp, r + "loss").flops == op_named(step, "loss").flops); // every rank's loss is whole
    const Op& loss = op_named(tp, r + "loss");
    REQUIRE(loss.inputs.size() == 1);
    const Op& from = tp.op(tp.tensor(loss.inputs.front()).producer);
    CHECK(from.kind == "collective"); // the partials come all-reduced
    CHECK(tp.tensor(loss.inputs.front()).bytes == doctest::Approx(12 * rows));
  }
  // The fused loss is split whole and needs no all-reduce of its own.
  const Graph fused = tensor_parallel(load_workload(small), o);
  CHECK(op_named(fused, "t0/loss").flops ==
        doctest::Approx(op_named(load_workload(small), "loss").flops / 2));
}

TEST_CASE("Megatron's fp16 optimizer moves 52 bytes per parameter where one fused Adam pass moves 30") {
  const Graph adam = load_workload(small), megatron = load_workload(small + ",optimizer=megatron");
  const std::string name = "h0.mlp.fc1.adam";
  const Op &a = op_named(adam, name), &m = op_named(megatron, name);
  const double weights = a.param_bytes / 12; // the fp32 master copy and two moments
  CHECK(weights == doctest::Approx(768.0 * 3072 + 3072));
  // One pass: the fp16 weight, its gradient and the 12 bytes of state read; weight and state written.
  CHECK(a.bytes_read == doctest::Approx(16 * weights));
  CHECK(a.bytes_written == doctest::Approx(14 * weights));
  // Megatron: the fp16 gradient copied to an fp32 main gradient (2 + 4), unscaled in place (4 + 4), its
  // norm read (4), Adam on the main parameter (16 + 12), the main parameter copied to the weight (4 + 2).
  CHECK(m.bytes_read == doctest::Approx(30 * weights));
  CHECK(m.bytes_written == doctest::Approx(22 * weights));
  CHECK(m.workspace_bytes == doctest::Approx(4 * weights)); // the main gradient
  CHECK(m.param_bytes == a.param_bytes);
  CHECK(m.flops > a.flops);
  // With ZeRO each rank updates, and so copies to fp32, its 1/n of the parameters.
  DataParallelOptions zero;
  zero.devices = {"gpu0", "gpu1", "gpu2", "gpu3"};
  zero.zero_stage = 1;
  const Graph sharded = data_parallel(megatron, zero);
  const Op& shard = op_named(sharded, "r0/" + name);
  CHECK(shard.workspace_bytes == doctest::Approx(m.workspace_bytes / 4));
  CHECK(shard.bytes_read == doctest::Approx(m.bytes_read / 4));
  CHECK_THROWS_WITH(load_workload("gpt2-small:mode=training,optimizer=megatron"),
                    doctest::Contains("precision=fp16 or bf16"));
  CHECK_THROWS_WITH(load_workload("gpt2-small:precision=fp16,optimizer=megatron"),
                    doctest::Contains("give mode=training"));
  CHECK_THROWS_WITH(load_workload("gpt2-small:loss=megatron"), doctest::Contains("give mode=training"));
}
