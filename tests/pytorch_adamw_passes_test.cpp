// What PyTorch's AdamW moves when fused=True is not given: the passes of `_multi_tensor_adamw`
// (torch/optim/adamw.py, PyTorch 2.x), each counted by hand, against one fused Adam pass.
#include "graph_lookup.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace hs;
using hs::test::op_named;

namespace {

const std::string step = "gpt2-small:mode=training,heads=fused,batch=2,seq=32";
constexpr double fc1_weights = 768.0 * 3072 + 3072;

} // namespace

TEST_CASE("PyTorch's AdamW moves 80 bytes per fp32 parameter in eight passes where one fused pass moves 28") {
  const Graph adam = load_workload(step), pytorch = load_workload(step + ",optimizer=foreach");
  const Op& fused = op_named(adam, "h0.mlp.fc1.adam");
  const Op& foreach = op_named(pytorch, "h0.mlp.fc1.adam");
  // Fused: the weight, its gradient and both moments read; the weight and both moments written.
  CHECK(fused.bytes_read == doctest::Approx(16 * fc1_weights));
  CHECK(fused.bytes_written == doctest::Approx(12 * fc1_weights));
  // p.mul_ (4 + 4), m.lerp_(g) (8 + 4), v.mul_ (4 + 4), v.addcmul_(g, g) (8 + 4), t = v.sqrt() (4 + 4),
  // t.div_ (4 + 4), t.add_ (4 + 4), p.addcdiv_(m, t) (12 + 4).
  CHECK(foreach.bytes_read == doctest::Approx(48 * fc1_weights));
  CHECK(foreach.bytes_written == doctest::Approx(32 * fc1_weights));
  CHECK(foreach.workspace_bytes == doctest::Approx(4 * fc1_weights)); // t
  CHECK(foreach.param_bytes == doctest::Approx(8 * fc1_weights));     // the two moments
  CHECK(foreach.param_bytes == fused.param_bytes);
  CHECK(foreach.flops == doctest::Approx(fused.flops + fc1_weights)); // the decoupled weight decay
}

TEST_CASE("PyTorch's AdamW keeps its moments in the weights' dtype: no fp32 master copy") {
  const Graph adam = load_workload(step + ",precision=bf16");
  const Graph pytorch = load_workload(step + ",precision=bf16,optimizer=foreach");
  const Op& fused = op_named(adam, "h0.mlp.fc1.adam");
  const Op& foreach = op_named(pytorch, "h0.mlp.fc1.adam");
  CHECK(fused.param_bytes == doctest::Approx(12 * fc1_weights));  // fp32 moments and master copy
  CHECK(foreach.param_bytes == doctest::Approx(4 * fc1_weights)); // bf16 moments (zeros_like)
  CHECK(foreach.bytes_read + foreach.bytes_written == doctest::Approx(40 * fc1_weights));
}

TEST_CASE("every weight tensor gets one AdamW op, and ZeRO shards its passes") {
  const Graph g = load_workload(step + ",optimizer=foreach");
  double read = 0, weights = 0;
  for (const Op& op : g.ops)
    if (op.kind == "optimizer") {
      read += op.bytes_read;
      for (const TensorId t : op.inputs) // the gradient, once per contribution (the tied embedding: two)
        read -= g.tensor(t).bytes;
      weights += op.param_bytes / 8;
    }
  // GPT-2 small's 124,439,808 parameters (the tied LM head has none of its own).
  CHECK(weights == doctest::Approx(124'439'808));
  CHECK(read == doctest::Approx(44 * weights)); // all but the gradient's first read
  DataParallelOptions zero;
  zero.devices = {"gpu0", "gpu1"};
  zero.zero_stage = 1;
  const Graph sharded = data_parallel(g, zero);
  CHECK(op_named(sharded, "r1/h0.mlp.fc1.adam").workspace_bytes ==
        doctest::Approx(op_named(g, "h0.mlp.fc1.adam").workspace_bytes / 2));
  CHECK_THROWS_WITH(load_workload("gpt2-small:optimizer=foreach"), doctest::Contains("give mode=training"));
}
