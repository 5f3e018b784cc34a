// The training kernels eager PyTorch runs besides the layers' own: each bias's gradient as a reduction of
// its own (bias_grad=separate) and F.cross_entropy as log_softmax then nll_loss (loss=eager). Known answers
// from the shapes, and the work conserved where only the kernels' split changes.
#include "graph_lookup.hpp"
#include "sim/error.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using hs::load_workload;
using hs::test::op_named;

namespace {

// GPT-2 small at batch 2, sequence 32: 64 tokens, hidden 768, FFN 3072, vocabulary 50257, fp32.
const std::string kGpt2 = "gpt2-small:mode=training,heads=fused,batch=2,seq=32";
constexpr double kTokens = 64, kHidden = 768, kInner = 3072, kVocab = 50257, kFp32 = 4;

bool reads_output_of(const hs::Graph& g, const hs::Op& consumer, const std::string& producer) {
  for (const auto t : consumer.inputs)
    if (g.op(g.tensor(t).producer).name == producer) return true;
  return false;
}

} // namespace

TEST_CASE("bias_grad=separate: db = dY summed over the tokens, one reduction per biased layer") {
  const hs::Graph fused = load_workload(kGpt2);
  const hs::Graph separate = load_workload(kGpt2 + ",bias_grad=separate");
  const auto& db = op_named(separate, "h0.mlp.fc1.bgrad");
  CHECK(db.kind == "reduce");
  CHECK(db.bytes_read == kTokens * kInner * kFp32); // dY of fc1, [64, 3072]
  CHECK(db.bytes_written == kInner * kFp32);
  CHECK(db.flops == kTokens * kInner);
  // The weight-gradient GEMM keeps dW alone: its FLOPs and output lose the bias's share.
  const auto& dw = op_named(separate, "h0.mlp.fc1.wgrad");
  CHECK(dw.flops == 2 * kTokens * kHidden * kInner);
  CHECK(dw.bytes_written == kHidden * kInner * kFp32);
  CHECK(op_named(fused, "h0.mlp.fc1.wgrad").flops == dw.flops + db.flops);
  CHECK(op_named(fused, "h0.mlp.fc1.wgrad").bytes_written == dw.bytes_written + db.bytes_written);
  // The optimizer reads both gradients; the reduction waits for dY, as the GEMMs do.
  const auto& adam = op_named(separate, "h0.mlp.fc1.adam");
  CHECK(reads_output_of(separate, adam, "h0.mlp.fc1.bgrad"));
  CHECK(reads_output_of(separate, adam, "h0.mlp.fc1.wgrad"));
  CHECK(reads_output_of(separate, db, "h0.mlp.gelu.bwd"));
  // Every biased projection has one, six a block (Q, K, V, the output, fc1 and fc2), the tied LM head
  // (no bias) none; the same total work and parameters.
  CHECK(separate.op_count() - fused.op_count() == 12 * 6);
  CHECK_FALSE(separate.find_op("lm_head.bgrad").has_value());
  CHECK(separate.total_flops() == doctest::Approx(fused.total_flops()));
  CHECK(hs::summarize(separate).parameters == hs::summarize(fused).parameters);
  // A layer's pass: the reduction is its backward pass.
  const hs::OpRoles roles = hs::roles_of(separate);
  const auto at = static_cast<std::size_t>(*separate.find_op("h0.mlp.fc1.bgrad"));
  CHECK(roles.pass[at] == hs::Pass::Backward);
  CHECK(separate.op(roles.owner[at]).name == "h0.mlp.fc1");
  // ResNet-50's classifier has a bias, its convolutions none.
  const hs::Graph resnet = load_workload("resnet50:mode=training,bias_grad=separate");
  CHECK(op_named(resnet, "fc.bgrad").bytes_written == 1000 * kFp32);
  CHECK(resnet.op_count() - load_workload("resnet50:mode=training").op_count() == 1);
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:bias_grad=separate"), doctest::Contains("bias_grad"),
                       hs::InputError);
}

TEST_CASE("tensor parallelism splits a column-parallel bias's gradient and keeps a row-parallel one whole") {
  const hs::Graph step = load_workload(kGpt2 + ",bias_grad=separate");
  hs::TensorParallelOptions o;
  o.devices = {"gpu0", "gpu1"};
  const hs::Graph tp = hs::tensor_parallel(step, o);
  CHECK(op_named(tp, "t1/h0.mlp.fc1.bgrad").flops ==
        doctest::Approx(op_named(step, "h0.mlp.fc1.bgrad").flops / 2));
  CHECK(op_named(tp, "t1/h0.mlp.fc1.bgrad").bytes_written == kInner / 2 * kFp32);
  CHECK(op_named(tp, "t1/h0.mlp.fc1.bgrad").allowed_devices == std::vector<std::string>{"gpu1"});
  // fc2 and the attention's output projection add their bias after the all-reduce: db is summed from the
  // whole dY on each rank, with no collective of its own.
  for (const char* layer : {"h0.mlp.fc2.bgrad", "h0.attn.out.bgrad"}) {
    CAPTURE(layer);
    const auto& whole = op_named(step, layer);
    for (const char* rank : {"t0/", "t1/"}) {
      const auto& on_rank = op_named(tp, std::string(rank) + layer);
      CHECK(on_rank.flops == whole.flops);
      CHECK(on_rank.bytes_read == whole.bytes_read);
      CHECK(on_rank.bytes_written == kHidden * kFp32);
    }
  }
  CHECK_FALSE(tp.find_op("allreduce.h0.mlp.fc2.bgrad").has_value());
}

TEST_CASE("a vocabulary split refuses the eager loss, which needs the whole vocabulary") {
  hs::TensorParallelOptions o;
  o.devices = {"gpu0", "gpu1"};
  o.split_vocabulary = true;
  CHECK_THROWS_WITH_AS(hs::tensor_parallel(load_workload(kGpt2 + ",loss=eager"), o),
                       doctest::Contains("loss=megatron"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(
      hs::tensor_parallel(load_workload("bert-base:mode=training,heads=fused,head=pretraining,loss=eager"),
                          o),
      doctest::Contains("mlm.loss.log_softmax"), std::invalid_argument);
  CHECK_NOTHROW(hs::tensor_parallel(load_workload(kGpt2 + ",loss=megatron"), o));
  o.split_vocabulary = false; // the loss then runs whole on each rank
  CHECK_NOTHROW(hs::tensor_parallel(load_workload(kGpt2 + ",loss=eager"), o));
}

TEST_CASE("loss=eager: log_softmax writes the log-probabilities, nll_loss's gradient is written whole") {
  const hs::Graph fused = load_workload(kGpt2);
  const hs::Graph eager = load_workload(kGpt2 + ",loss=eager");
  const double logits = kTokens * kVocab * kFp32;
  const auto& log_softmax = op_named(eager, "loss.log_softmax");
  CHECK(log_softmax.bytes_read == logits);
  CHECK(log_softmax.bytes_written == logits);
  CHECK(log_softmax.flops == 5 * kTokens * kVocab);
  const auto& nll = op_named(eager, "loss");
  CHECK(nll.bytes_read == kTokens * (kFp32 + 8)); // the target's log-probability and int64 label per row
  CHECK(nll.flops == kTokens);
  // Backward: zeros with -1/rows at the targets, then dy - exp(y) * sum(dy) from them and y.
  const auto& nll_grad = op_named(eager, "loss.bwd");
  CHECK(nll_grad.bytes_written == logits);
  const auto& log_softmax_grad = op_named(eager, "loss.log_softmax.bwd");
  CHECK(log_softmax_grad.bytes_read == 2 * logits);
  CHECK(log_softmax_grad.bytes_written == logits);
  CHECK(reads_output_of(eager, log_softmax_grad, "loss.bwd"));
  CHECK(reads_output_of(eager, op_named(eager, "lm_head.dgrad"), "loss.log_softmax.bwd"));
  // Two ops each way where the fused loss has one; six passes over the logits where it makes three (read
  // them; read them again and write the gradient).
  CHECK(eager.op_count() - fused.op_count() == 2);
  const auto traffic = [](const hs::Graph& g) {
    double bytes = 0;
    for (const char* name : {"loss", "loss.bwd", "loss.log_softmax", "loss.log_softmax.bwd"})
      if (const auto id = g.find_op(name)) bytes += g.op(*id).bytes_read + g.op(*id).bytes_written;
    return bytes;
  };
  CHECK(traffic(eager) - traffic(fused) == doctest::Approx(3 * logits).epsilon(1e-4));
  // BERT's pre-training heads take both losses eagerly.
  const hs::Graph bert = load_workload("bert-base:mode=training,head=pretraining,loss=eager");
  CHECK(op_named(bert, "mlm.loss.log_softmax").bytes_written == 128 * 30522 * kFp32);
  CHECK(op_named(bert, "nsp.loss.log_softmax").bytes_written == 2 * kFp32);
  CHECK_THROWS_WITH_AS(load_workload("bert-base:loss=eager"), doctest::Contains("loss"), hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("bert-base:mode=training,loss=megatron"), doctest::Contains("loss"),
                       hs::InputError);
}
