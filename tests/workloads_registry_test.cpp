// Builder specs: keys are checked against the builder's parameter list before it builds anything.
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <stdexcept>
#include <string>

namespace {
int counting_builds = 0;
} // namespace

HS_REGISTER_WORKLOAD(test_counting,
                     hs::WorkloadBuilder{"test-counting",
                                         "a one-op graph that counts its builds",
                                         {{"size", "1"}, {"detail", "0", "read when size > 1"}},
                                         [](hs::WorkloadParams& p) {
                                           ++counting_builds;
                                           hs::GraphBuilder b("counting");
                                           const double size = p.number("size", 1, 0, 1e9);
                                           if (size > 1) (void)p.number("detail", 0, 0, 1);
                                           b.op("only").flops(size);
                                           return std::move(b).build();
                                         }})
HS_REGISTER_WORKLOAD(test_undeclared, hs::WorkloadBuilder{"test-undeclared",
                                                          "reads a key its list does not name",
                                                          {},
                                                          [](hs::WorkloadParams& p) {
                                                            hs::GraphBuilder b("undeclared");
                                                            b.op("only").flops(p.number("size", 1, 0, 1e9));
                                                            return std::move(b).build();
                                                          }})

TEST_CASE("a builder spec's unknown key is refused before the builder runs, naming the key and the list") {
  counting_builds = 0;
  CHECK(hs::load_workload("test-counting:size=2").op_count() == 1);
  CHECK(counting_builds == 1);
  try {
    (void)hs::load_workload("test-counting:size=2,sise=3");
    FAIL("an unknown key was accepted");
  } catch (const hs::InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("sise") != std::string::npos);
    CHECK(what.find("unknown parameter") != std::string::npos);
    CHECK(what.find("takes: size, detail") != std::string::npos);
  }
  CHECK(counting_builds == 1);
  // The fuzzer's slow case: a typo beside a parameter that makes the graph large fails at once.
  CHECK_THROWS_AS((void)hs::load_workload("gpt2-small:tch1=1,seq=512,decode=512"), hs::InputError);
}

TEST_CASE("a builder that reads a key its parameter list does not name is a programming error") {
  CHECK_THROWS_AS((void)hs::load_workload("test-undeclared"), std::logic_error);
}

TEST_CASE("every registered builder builds with its defaults and reads only the keys it lists") {
  for (const auto& b : hs::workload_builders().all()) {
    if (b.name == "test-undeclared") continue;
    CAPTURE(b.name);
    CHECK_NOTHROW((void)hs::load_workload(b.name));
    CHECK_FALSE(b.parameters.empty());
  }
}

TEST_CASE("the parameter line lists each key with its default or choices, and its note") {
  const auto* random = hs::workload_builders().find("random");
  REQUIRE(random);
  CHECK(random->parameter_line() ==
        "ops=1000 alpha=1.0 out_degree=2.0 precision=fp32|fp64|fp16|bf16|int8 seed=<--seed>");
  const auto* gpt2 = hs::workload_builders().find("gpt2-small");
  REQUIRE(gpt2);
  CHECK(gpt2->parameter_line() ==
        "batch=1 seq=128 (prompt) implementation=reference|huggingface (huggingface: the defaults of the "
        "options below as Hugging Face's eager PyTorch runs the model (workloads/README.md)) "
        "decode=8 (inference: generated tokens) "
        "heads=branches|fused attention=fused|eager (scale and mask: in the softmax or passes of their own) "
        "dropout=off|on (training) gelu=fused|eager (one kernel, or Hugging Face's gelu_new: a kernel per "
        "operation) projections=linear|fused_qkv|conv1d (three nn.Linear for Q, K, V; one QKV GEMM "
        "(Megatron-LM); or Hugging Face's Conv1D: one QKV GEMM and every projection's weights [in, out]) "
        "lm_head=last|all (inference: the prefill's LM head rows) "
        "recompute=off|full (training: each transformer layer's forward again in its backward pass) "
        "loss=fused|eager|megatron (training: one pass over the logits each way, or F.cross_entropy's "
        "log_softmax and nll_loss, or Megatron-LM's cross-entropy on an fp32 copy) "
        "precision=fp32|fp16|bf16|int8 mode=inference|training optimizer=adam|foreach|megatron "
        "(training: one fused Adam pass, PyTorch's AdamW as it runs without fused=True (a pass per step of "
        "its arithmetic), or Megatron-LM's fp16 optimizer) bias_grad=fused|separate (training: each bias's "
        "gradient in its weight-gradient GEMM, or a reduction of its own as PyTorch's autograd runs it) "
        "clip=off|norm (training: torch.nn.utils.clip_grad_norm_ before the optimizer step, as Hugging "
        "Face's Trainer runs it) issue=captured|eager (the host's time to issue each op: none (compiled or "
        "graph-captured), or eager PyTorch's, measured (workloads/eager_issue.hpp)) "
        "device=any|cpu|gpu|npu|fpga "
        "(the device kind every op may run on: any (the policy chooses), or one kind, as a framework program "
        "moved to one device runs every op there)");
}

TEST_CASE("a listed key that the other parameters leave unread is refused by name") {
  CHECK(hs::load_workload("test-counting:size=2,detail=1").op_count() == 1);
  try {
    (void)hs::load_workload("test-counting:size=1,detail=1");
    FAIL("an unread key was accepted");
  } catch (const hs::InputError& e) {
    CHECK(std::string(e.what()).find("detail") != std::string::npos);
  }
}
