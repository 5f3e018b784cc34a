// Which implementation a transformer graph stands for: attention fused or eager, dropout in training, the
// LM head over the last token or all, GELU as one kernel or eager passes; the defaults leave the graphs as
// they were.
#include "graph_lookup.hpp"
#include "sim/error.hpp"
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
  CHECK(eager.op_count() == fused.op_count() + 2 * 12); // 12 layers, one batched op each
  CHECK(ops_named(eager, ".scale") == 12);
  // Each pass touches every score: 12 heads x 128 x 128 at batch 1, one operation each.
  CHECK(eager.ops[static_cast<std::size_t>(*eager.find_op("layer0.attn.scale"))].flops == 12.0 * 128 * 128);
  CHECK(eager.total_flops() > fused.total_flops());
}

TEST_CASE("dropout applies in training only, on attention probabilities and residual branches") {
  const hs::Graph plain = load_workload("gpt2-small:mode=training,heads=fused");
  const hs::Graph dropped = load_workload("gpt2-small:mode=training,heads=fused,dropout=on");
  CHECK(ops_named(plain, "dropout") == 0);
  CHECK(ops_named(dropped, "dropout") >= 3 * 12); // forward ops: attention, attention output, MLP output
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
