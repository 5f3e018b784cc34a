// Which implementation a transformer graph stands for: attention fused or eager, dropout in training, the
// LM head over the last token or all, GELU as one kernel or eager passes; the defaults leave the graphs as
// they were.
#include "graph_lookup.hpp"
#include "sim/error.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>

using hs::load_workload;

namespace {

int ops_named(const hs::Graph& g, const std::string& part) {
  int n = 0;
  for (const auto& o : g.ops)
    n += o.name.find(part) != std::string::npos ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("eager attention adds a scale and a mask pass over batch x heads x seq^2 per head") {
  const hs::Graph fused = load_workload("bert-base:heads=fused");
  const hs::Graph eager = load_workload("bert-base:heads=fused,attention=eager");
  CHECK(load_workload("bert-base:heads=fused,attention=fused").op_count() == fused.op_count());
  // 12 layers, one batched op each: the scale, the mask, and the heads' contexts copied back to
  // [tokens, hidden]; one sequence needs no copy of Q, K or V (a view merges batch 1 with the heads).
  CHECK(eager.op_count() == fused.op_count() + 3 * 12);
  CHECK(ops_named(eager, ".scale") == 12);
  CHECK(ops_named(eager, ".split_") == 0);
  // Each pass touches every score: 12 heads x 128 x 128 at batch 1, one operation each.
  CHECK(eager.ops[static_cast<std::size_t>(*eager.find_op("layer0.attn.scale"))].flops == 12.0 * 128 * 128);
  CHECK(eager.total_flops() > fused.total_flops());
}

TEST_CASE("eager attention copies Q, K and V of several sequences and the contexts back, both ways") {
  const std::string base = "bert-base:heads=fused,batch=2,seq=64,mode=training";
  const hs::Graph fused = load_workload(base);
  const hs::Graph eager = load_workload(base + ",attention=eager");
  const double tokens_x_hidden = 2 * 64 * 768, e = 4;
  for (const char* copy :
       {"layer0.attn.split_q", "layer0.attn.split_k", "layer0.attn.split_v", "layer0.attn.merge_heads"}) {
    const auto& op = hs::test::op_named(eager, copy);
    CHECK_MESSAGE(op.flops == 0, copy);
    CHECK_MESSAGE(op.bytes_read + op.bytes_written == doctest::Approx(2 * tokens_x_hidden * e), copy);
    // A copy's gradient is a copy back.
    const auto& grad = hs::test::op_named(eager, std::string(copy) + ".bwd");
    CHECK_MESSAGE(grad.bytes_read + grad.bytes_written == doctest::Approx(2 * tokens_x_hidden * e), copy);
  }
  // The products read the copies: what bmm saves for its backward pass.
  const auto& scores = hs::test::op_named(eager, "layer0.attn.scores");
  CHECK(eager.op(eager.tensor(scores.inputs.front()).producer).name == "layer0.attn.split_q");
  // Per layer: scale, mask, three splits, one merge; forward and backward.
  CHECK(eager.op_count() - fused.op_count() == 12 * 6 * 2);
  // GPT-2's decode steps read K and V from the cache, and one query row needs no copy.
  const hs::Graph decode = load_workload("gpt2-small:heads=fused,batch=2,seq=16,decode=1,attention=eager");
  CHECK(hs::test::op_named(decode, "h0.attn.split_k").flops == 0);
  CHECK_FALSE(decode.find_op("step1.h0.attn.split_q").has_value());
  CHECK_FALSE(decode.find_op("step1.h0.attn.merge_heads").has_value());
}

TEST_CASE("dropout applies in training only, on attention probabilities and residual branches") {
  const hs::Graph plain = load_workload("gpt2-small:mode=training,heads=fused");
  const hs::Graph dropped = load_workload("gpt2-small:mode=training,heads=fused,dropout=on");
  CHECK(ops_named(plain, "dropout") == 0);
  CHECK(ops_named(dropped, "dropout") >= 3 * 12); // forward ops: attention, attention output, MLP output
  // and the embeddings' sum, as GPT2Model.drop and BertEmbeddings.dropout apply it.
  const auto& embedding_dropout = hs::test::op_named(dropped, "embeddings.dropout");
  CHECK(embedding_dropout.bytes_written == 128 * 768 * 4.0);
  CHECK(hs::test::op_named(dropped, "embeddings.dropout.bwd").bytes_written == 128 * 768 * 4.0);
  CHECK(load_workload("bert-base:mode=training,dropout=on").find_op("embeddings.dropout").has_value());
  CHECK_FALSE(plain.find_op("embeddings.dropout").has_value());
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:dropout=on"), doctest::Contains("training only"),
                       hs::InputError);
}

TEST_CASE("the GPT-2 prefill's LM head covers the last token by default, every token on request") {
  const hs::Graph last = load_workload("gpt2-small:decode=0");
  const hs::Graph all = load_workload("gpt2-small:decode=0,lm_head=all");
  const auto head_flops = [](const hs::Graph& g) {
    return g.ops[static_cast<std::size_t>(*g.find_op("lm_head"))].flops;
  };
  CHECK(head_flops(all) == doctest::Approx(128 * head_flops(last)));
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:mode=training,lm_head=last"),
                       doctest::Contains("lm_head=all"), hs::InputError);
}

TEST_CASE("GPT-2's gelu_new as Hugging Face runs it: eight passes moving 18 values per element, not 2") {
  const std::string base = "gpt2-small:mode=training,heads=fused,batch=2,seq=32";
  const hs::Graph fused = load_workload(base);
  const hs::Graph eager = load_workload(base + ",gelu=eager");
  const double elements = 2 * 32 * 3072, e = 4;
  const auto traffic = [](const hs::Graph& g, const std::string& name) {
    const auto& op = hs::test::op_named(g, name);
    return op.bytes_read + op.bytes_written;
  };
  const std::string gelu = "h0.mlp.gelu";
  CHECK(traffic(fused, gelu) == doctest::Approx(2 * elements * e));
  // 0.5 * x, x^3, 0.044715 * x^3 and the other products by a constant, tanh and 1 + tanh read one value
  // and write one; x + 0.044715 x^3 and the final product read two.
  double passes = 0;
  for (const char* part : {".half", ".cube", ".term", ".inner", ".scaled", ".tanh", ".gate", ""})
    passes += traffic(eager, gelu + part);
  CHECK(passes == doctest::Approx(18 * elements * e));
  CHECK(ops_named(eager, ".mlp.gelu.") - ops_named(fused, ".mlp.gelu.") >= 7 * 12);
  // What autograd saves stays alive until the backward pass: tanh's output and both factors of the product.
  for (const char* saved : {".tanh", ".half", ".gate"}) {
    const auto& op = hs::test::op_named(eager, gelu + saved);
    bool read_backward = false;
    for (const auto c : eager.tensor(op.outputs.front()).consumers)
      read_backward = read_backward || eager.op(c).name.find(".bwd") != std::string::npos;
    CHECK_MESSAGE(read_backward, saved);
  }
  CHECK(load_workload("gpt2-small:gelu=fused").op_count() == load_workload("gpt2-small").op_count());
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:gelu=python"), doctest::Contains("gelu"), hs::InputError);
}

TEST_CASE("tensor parallelism splits an eager GELU's passes as it splits the GELU") {
  const hs::Graph step = load_workload("gpt2-small:mode=training,heads=fused,batch=2,seq=32,gelu=eager");
  hs::TensorParallelOptions o;
  o.devices = {"gpu0", "gpu1"};
  const hs::Graph tp = hs::tensor_parallel(step, o);
  for (const std::string pass : {"h0.mlp.gelu.tanh", "h0.mlp.gelu.inner", "h0.mlp.gelu"}) {
    CHECK(hs::test::op_named(tp, "t1/" + pass).flops ==
          doctest::Approx(hs::test::op_named(step, pass).flops / 2));
  }
}

namespace {

double dim(const hs::Op& op, const char* name) {
  const auto it = op.dims.find(name);
  return it == op.dims.end() ? 0 : it->second;
}

} // namespace

TEST_CASE("GPT-2's projections as Hugging Face's Conv1D: one QKV GEMM, weights [in, out], the same work") {
  const std::string base = "gpt2-small:mode=training,heads=fused,batch=2,seq=32";
  const hs::Graph linear = load_workload(base);
  const hs::Graph megatron = load_workload(base + ",projections=fused_qkv");
  const hs::Graph conv1d = load_workload(base + ",projections=conv1d");
  using hs::test::op_named;
  // c_attn: [64 tokens, 768] x [768, 2304], one op where nn.Linear's graph has three.
  const auto& qkv = op_named(conv1d, "h0.attn.qkv");
  CHECK(dim(qkv, "m") == 64);
  CHECK(dim(qkv, "n") == 3 * 768);
  CHECK(dim(qkv, "k") == 768);
  CHECK(qkv.outputs.size() == 3); // Q, K and V, each read by its own consumers
  for (const auto t : qkv.outputs)
    CHECK(conv1d.tensor(t).bytes == 64.0 * 768 * 4);
  CHECK_FALSE(conv1d.find_op("h0.attn.q").has_value());
  // Two layers fewer a block, each with its forward, dX, dW and optimizer ops.
  CHECK(linear.op_count() - conv1d.op_count() == 12 * 2 * 4);
  // Y = X W without a transposed operand; dX = dY W^T with one; dW = X^T dY as nn.Linear's.
  for (const char* layer : {"h0.attn.qkv", "h0.attn.out", "h0.mlp.fc1", "h0.mlp.fc2"}) {
    CHECK_MESSAGE(dim(op_named(conv1d, layer), hs::kTransposedB) == 0, layer);
    CHECK_MESSAGE(dim(op_named(conv1d, std::string(layer) + ".dgrad"), hs::kTransposedB) == 1, layer);
    CHECK_MESSAGE(dim(op_named(conv1d, std::string(layer) + ".wgrad"), hs::kTransposedA) == 1, layer);
    CHECK_MESSAGE(dim(op_named(megatron, layer), hs::kTransposedB) == 1, layer);
  }
  CHECK(dim(op_named(linear, "h0.mlp.fc1"), hs::kTransposedB) == 1);
  CHECK(dim(op_named(linear, "h0.mlp.fc1.dgrad"), hs::kTransposedB) == 0);
  CHECK(dim(op_named(conv1d, "lm_head"), hs::kTransposedB) == 1); // nn.Linear, tied to wte [vocab, h]
  // The same GEMM FLOPs and parameters however the weights are laid out; three projections of one input
  // also sum its three gradients, two adds per element of [64, 768] in each of the 12 blocks.
  CHECK(linear.total_flops() - conv1d.total_flops() == doctest::Approx(12 * 2 * 64.0 * 768));
  CHECK(megatron.total_flops() == doctest::Approx(conv1d.total_flops()));
  const hs::GraphSummary weights = hs::summarize(linear);
  CHECK(weights.parameters > 0);
  for (const hs::Graph* g : {&conv1d, &megatron}) {
    CHECK(hs::summarize(*g).parameters == doctest::Approx(weights.parameters));
    CHECK(hs::summarize(*g).optimizer_state_bytes == doctest::Approx(weights.optimizer_state_bytes));
  }
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:projections=dense"), doctest::Contains("projections"),
                       hs::InputError);
}

TEST_CASE("one QKV GEMM feeds every head's branch and the KV cache of each decode step") {
  const hs::Graph g = load_workload("gpt2-small:heads=branches,projections=conv1d,decode=2");
  const auto& qkv = hs::test::op_named(g, "h0.attn.qkv");
  CHECK(qkv.outputs.size() == 3 * 12); // [Q | K | V], each split by head
  CHECK(hs::test::op_named(g, "h0.attn.head11.scores").flops > 0);
  // Each decode step projects its token with the prefill's weights.
  const auto& step = hs::test::op_named(g, "step2.h0.attn.qkv");
  CHECK(step.param_bytes == 0);
  CHECK(qkv.param_bytes == (768.0 * 3 * 768 + 3 * 768) * 4);
  CHECK(dim(step, hs::kTransposedB) == 0);
  // Two GEMMs fewer a layer in each of the three passes (the prefill and two steps).
  CHECK(load_workload("gpt2-small:heads=branches,decode=2").op_count() - g.op_count() == 2 * 12 * 3);
}

TEST_CASE("tensor parallelism splits the one QKV GEMM by its output columns") {
  const hs::Graph step =
      load_workload("gpt2-small:mode=training,heads=fused,batch=2,seq=32,projections=fused_qkv");
  hs::TensorParallelOptions o;
  o.devices = {"gpu0", "gpu1"};
  const hs::Graph tp = hs::tensor_parallel(step, o);
  const auto& shard = hs::test::op_named(tp, "t1/h0.attn.qkv");
  CHECK(shard.flops == doctest::Approx(hs::test::op_named(step, "h0.attn.qkv").flops / 2));
  CHECK(dim(shard, "n") == 3 * 768 / 2);
}

namespace {

// The same ops, by name and work, in the same order.
void check_same_graph(const hs::Graph& a, const hs::Graph& b) {
  REQUIRE(a.op_count() == b.op_count());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    CHECK(a.ops[i].name == b.ops[i].name);
    CHECK(a.ops[i].flops == b.ops[i].flops);
    CHECK(a.ops[i].bytes_read + a.ops[i].bytes_written == b.ops[i].bytes_read + b.ops[i].bytes_written);
    CHECK(a.ops[i].host_issue == b.ops[i].host_issue);
    CHECK(a.ops[i].allowed_kinds == b.ops[i].allowed_kinds);
  }
}

} // namespace

TEST_CASE("implementation=huggingface gives the eager recipe's options at once, each can still be given") {
  const std::string gpt = "gpt2-small:batch=2,seq=32";
  check_same_graph(load_workload(gpt + ",mode=training,implementation=huggingface"),
                   load_workload(gpt + ",mode=training,heads=fused,attention=eager,dropout=on,"
                                       "optimizer=foreach,loss=eager,bias_grad=separate,gelu=eager,"
                                       "projections=conv1d,issue=eager,device=gpu"));
  // Inference: no dropout and no optimizer, every token's logits.
  check_same_graph(load_workload(gpt + ",implementation=huggingface"),
                   load_workload(gpt +
                                 ",heads=fused,attention=eager,gelu=eager,projections=conv1d,lm_head=all,"
                                 "issue=eager,device=gpu"));
  // BERT has no GELU, projection or LM-head option of its own.
  check_same_graph(
      load_workload("bert-base:mode=training,implementation=huggingface"),
      load_workload("bert-base:mode=training,heads=fused,attention=eager,dropout=on,optimizer=foreach,"
                    "loss=eager,bias_grad=separate,issue=eager,device=gpu"));
  check_same_graph(load_workload("bert-base:implementation=reference"), load_workload("bert-base"));
  // An option given overrides the implementation's value for it.
  const hs::Graph fused_gelu = load_workload(gpt + ",implementation=huggingface,gelu=fused");
  CHECK_FALSE(fused_gelu.find_op("h0.mlp.gelu.tanh").has_value());
  CHECK(fused_gelu.find_op("h0.attn.qkv").has_value());
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:implementation=pytorch"),
                       doctest::Contains("implementation"), hs::InputError);
}
