// Model builders against published parameter and FLOP counts, and the invariants of derived training
// graphs (backward costs, activations kept for backward, Adam state, KV cache growth).
#include "graph_lookup.hpp"
#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>
#include <tuple>

using hs::Graph;
using hs::load_workload;
using hs::summarize;
using hs::test::op_named;

namespace {

double kind_flops(const hs::GraphSummary& s, const std::string& kind) {
  auto it = s.by_kind.find(kind);
  return it == s.by_kind.end() ? 0.0 : it->second.flops;
}

const hs::Tensor& tensor_named(const Graph& g, const std::string& name) {
  for (const auto& t : g.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  return g.tensors.front();
}

} // namespace

// torchvision's model table (pytorch.org/vision/stable/models.html): ResNet-50 25,557,032 parameters and
// 4.09 GFLOPS, ResNet-18 11,689,512 and 1.81 "GFLOPS" (multiply-adds of convolutions and the FC layer).
TEST_CASE("ResNet parameters and multiply-adds match torchvision's published counts") {
  const auto r50 = summarize(load_workload("resnet50"));
  CHECK(r50.parameters == 25'557'032);
  const double macs50 = (kind_flops(r50, "conv2d") + kind_flops(r50, "gemm")) / 2;
  CHECK(macs50 == doctest::Approx(4.09e9).epsilon(0.005));
  CHECK(macs50 == doctest::Approx(4.1e9).epsilon(0.01));

  const auto r18 = summarize(load_workload("resnet18"));
  CHECK(r18.parameters == 11'689'512);
  CHECK((kind_flops(r18, "conv2d") + kind_flops(r18, "gemm")) / 2 == doctest::Approx(1.81e9).epsilon(0.005));
}

TEST_CASE("ResNet FLOPs scale with batch and with image area") {
  const auto one = summarize(load_workload("resnet50"));
  const auto eight = summarize(load_workload("resnet50:batch=8"));
  CHECK(kind_flops(eight, "conv2d") == doctest::Approx(8 * kind_flops(one, "conv2d")));
  CHECK(eight.parameters == one.parameters);
  // At 448x448 every feature map has 4x the positions; the FC layer is unchanged.
  const auto big = summarize(load_workload("resnet50:image=448"));
  CHECK(kind_flops(big, "conv2d") == doctest::Approx(4 * kind_flops(one, "conv2d")));
}

// Devlin et al. 2019 give 110M (base) and 340M (large); the released checkpoints hold exactly
// 109,482,240 and 335,141,888 (embeddings, encoder, pooler).
TEST_CASE("BERT parameter counts match the published models") {
  const auto base = summarize(load_workload("bert-base:seq=16"));
  CHECK(base.parameters == 109'482'240);
  CHECK(base.parameters == doctest::Approx(110e6).epsilon(0.01));
  const auto large = summarize(load_workload("bert-large:seq=16"));
  CHECK(large.parameters == 335'141'888);
  CHECK(large.parameters == doctest::Approx(340e6).epsilon(0.02));
}

// Hugging Face's BertForPreTraining adds the masked-LM transform (h^2 + h, a layer norm's 2h), the decoder's
// bias (V, not a parameter here: the decoder is the tied word embedding) and next-sentence prediction
// (2h + 2): 110,106,428 and 336,226,108 parameters.
TEST_CASE("BERT with its pre-training heads: the released models' parameters, the decoder tied, two losses") {
  const double vocab = 30522;
  for (const auto& model :
       {std::tuple{"bert-base", 768.0, 110'106'428.0}, std::tuple{"bert-large", 1024.0, 336'226'108.0}}) {
    const std::string name = std::get<0>(model); // not a structured binding: clang 14 cannot capture one
    const double h = std::get<1>(model), released = std::get<2>(model);
    CAPTURE(name);
    const Graph g = load_workload(std::string(name) + ":seq=16,head=pretraining,mode=training");
    CHECK(summarize(g).parameters == released - vocab);
    const hs::Op& decoder = g.op(*g.find_op("cls.decoder"));
    CHECK(decoder.flops == 2 * 16 * h * vocab);
    CHECK(decoder.param_bytes == 0); // the word embedding's weights
    CHECK(g.find_op("mlm.loss"));
    CHECK(g.find_op("nsp.loss"));
    CHECK_FALSE(g.find_op("classifier"));
  }
  // Inference runs the heads without their losses; the classifier's graph stops at the pooler.
  const Graph inference = load_workload("bert-base:seq=16,head=pretraining");
  CHECK(inference.find_op("cls.decoder"));
  CHECK_FALSE(inference.find_op("mlm.loss"));
  CHECK(summarize(load_workload("bert-base:seq=16")).parameters == 109'482'240);
}

TEST_CASE("BERT-base matmul FLOPs equal the closed form 2 x tokens x weights + attention") {
  // Per layer: Q, K, V, output (4 h^2) and the FFN (2 h * 4h) multiply-adds per token, plus biases; per
  // layer attention 2 * s^2 * h multiply-adds (scores and context); the pooler on [CLS].
  const double h = 768, s = 128, layers = 12, tokens = s;
  const double linear_macs = tokens * layers * (4 * h * h + 2 * h * 4 * h) + h * h;
  const double bias_adds = tokens * layers * (4 * h + 4 * h + h) + h;
  const double attention_macs = layers * 2 * s * s * h;
  const auto b = summarize(load_workload("bert-base:seq=128"));
  CHECK(kind_flops(b, "gemm") == doctest::Approx(2 * linear_macs + bias_adds).epsilon(1e-12));
  CHECK(kind_flops(b, "attention") == doctest::Approx(2 * attention_macs).epsilon(1e-12));
  // Per-head branches and one fused op per layer are the same arithmetic.
  const auto fused = summarize(load_workload("bert-base:seq=128,heads=fused"));
  CHECK(kind_flops(fused, "attention") == doctest::Approx(kind_flops(b, "attention")));
  CHECK(fused.ops < b.ops);
  CHECK(b.by_kind.at("softmax").ops == 12 * 12);
}

// Radford et al. 2019 list 117M/345M/762M (counted without tied weights and positions consistently);
// the released checkpoints hold 124,439,808 / 354,823,168 / 774,030,080 parameters.
TEST_CASE("GPT-2 parameter counts match the released checkpoints, the output head tied to the embedding") {
  CHECK(summarize(load_workload("gpt2-small:seq=8,decode=1")).parameters == 124'439'808);
  CHECK(summarize(load_workload("gpt2-medium:seq=8,decode=1")).parameters == 354'823'168);
  CHECK(summarize(load_workload("gpt2-large:seq=8,decode=1")).parameters == 774'030'080);
  CHECK(summarize(load_workload("gpt2-small:seq=8,mode=training")).parameters == 124'439'808);
}

TEST_CASE("GPT-2 decode steps read a KV cache that grows by one position per step") {
  const Graph g = load_workload("gpt2-small:seq=16,decode=4,batch=2");
  const double head_bytes = 64 * 4; // head dimension x fp32
  for (int step = 2; step <= 4; ++step) {
    const std::string p = "step" + std::to_string(step) + ".h0.attn";
    // Output 0 is head 0's keys: batch x (prompt + step) positions.
    CHECK(tensor_named(g, p + ".kv_cache:0").bytes == 2 * (16 + step) * head_bytes);
    CHECK(op_named(g, p + ".head0.scores").flops == 2.0 * 2 * 1 * (16 + step) * 64);
  }
  // The step after the prefill reads the prefill's keys; each step needs the token the step before sampled.
  CHECK(tensor_named(g, "h0.attn.k:part0").consumers.size() == 2);
  const auto& sample = tensor_named(g, "step3.sample");
  CHECK(g.op(sample.consumers.front()).name == "step4.wte");
  // Decode steps reuse the prefill's weights: no new parameters, no resident copies.
  CHECK(op_named(g, "step2.h0.attn.q").param_bytes == 0);
  CHECK(op_named(g, "h0.attn.q").param_bytes == (768.0 * 768 + 768) * 4);
}

TEST_CASE("Training doubles the matmul work in backward and keeps activations for it") {
  const auto inf = summarize(load_workload("bert-base:seq=32,batch=2"));
  const auto train = summarize(load_workload("bert-base:seq=32,batch=2,mode=training"));
  const double fwd = kind_flops(inf, "gemm") + kind_flops(inf, "attention");
  const double all = kind_flops(train, "gemm") + kind_flops(train, "attention");
  // Forward + data gradients + weight gradients = 3x forward, less the gradients nobody needs (the
  // embeddings' inputs are token ids) and plus the classifier head.
  CHECK(all / fwd == doctest::Approx(3.0).epsilon(0.01));
  CHECK(train.parameters == inf.parameters + 768 * 2 + 2); // the classification head

  const Graph g = load_workload("resnet18:mode=training");
  for (const auto& op : g.ops) {
    if (op.kind != "conv2d" || op.name.find('.') == std::string::npos ||
        op.name.find("grad") != std::string::npos)
      continue;
    // The convolution's input must still be there when its weight gradient is computed.
    const auto& input = g.tensor(op.inputs.at(0));
    bool read_by_wgrad = false;
    for (hs::OpId c : input.consumers)
      read_by_wgrad |= g.op(c).name == op.name + ".wgrad";
    CHECK_MESSAGE(read_by_wgrad, op.name);
  }
}

TEST_CASE("Adam keeps two fp32 moments per parameter, plus an fp32 master copy in mixed precision") {
  const auto fp32 = summarize(load_workload("resnet18:mode=training"));
  CHECK(fp32.optimizer_state_bytes == 8 * fp32.parameters);
  const auto fp16 = summarize(load_workload("resnet18:mode=training,precision=fp16"));
  CHECK(fp16.optimizer_state_bytes == 12 * fp16.parameters);
  CHECK(fp16.param_bytes == 2 * fp16.parameters);
  CHECK(fp16.by_kind.at("optimizer").flops == 13 * fp16.parameters);
  // One update per weight-owning layer: 20 convolutions, 20 batch norms, 1 FC.
  CHECK(fp32.by_kind.at("optimizer").ops == 41);
}

TEST_CASE("GCN and GraphSAGE on Cora: parameters and per-layer edge work") {
  // GCNConv 1433->16 and 16->7 with biases (Kipf & Welling 2017's Cora model): 23,063 parameters.
  const auto gcn = summarize(load_workload("gcn"));
  CHECK(gcn.parameters == 1433 * 16 + 16 + 16 * 7 + 7);
  CHECK(kind_flops(gcn, "gather") == 10556.0 * (16 + 7));
  const auto sage = summarize(load_workload("graphsage"));
  CHECK(sage.parameters == 2 * 1433 * 16 + 16 + 2 * 16 * 7 + 7);
  const auto big = summarize(
      load_workload("gcn:nodes=100000,edges=2000000,features=128,hidden=64,classes=10,mode=training"));
  CHECK(big.by_kind.at("optimizer").ops == 2);
}

TEST_CASE("Builders reject bad parameters by name") {
  CHECK_THROWS_WITH_AS(load_workload("resnet50:precision=int8,mode=training"), doctest::Contains("precision"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("bert-base:seq=513"), doctest::Contains("seq"), hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("bert-base:bacth=8"), doctest::Contains("bacth"), hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:seq=1000,decode=100"), doctest::Contains("decode"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("gpt2-small:mode=training,decode=4"), doctest::Contains("decode"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(load_workload("gcn:batch=4"), doctest::Contains("batch"), hs::InputError);
}

TEST_CASE("Every model builds in both modes with unique op names, deterministically") {
  for (const std::string spec :
       {"resnet18:image=64", "resnet50:image=64", "bert-base:seq=16", "bert-large:seq=8",
        "gpt2-small:seq=8,decode=2", "gpt2-medium:seq=8,decode=1", "gcn", "graphsage"}) {
    for (const std::string mode : {"inference", "training"}) {
      std::string s = spec + ",mode=" + mode;
      if (mode == "training" && spec.rfind("gpt2", 0) == 0)
        s = spec.substr(0, spec.find(",decode")) + ",mode=training";
      if (spec.find(':') == std::string::npos) s = spec + ":mode=" + mode;
      CAPTURE(s);
      const Graph a = load_workload(s);
      const Graph b = load_workload(s);
      CHECK(hs::graph_to_json(a).dump() == hs::graph_to_json(b).dump());
      // Round trip through the file format (which rejects duplicate names) keeps every number.
      const Graph c = hs::parse_graph(hs::graph_to_json(a), s);
      CHECK(hs::graph_to_json(c) == hs::graph_to_json(a)); // named dimensions included
      CHECK(c.op_count() == a.op_count());
      CHECK(c.total_flops() == a.total_flops());
      const auto sum = summarize(a);
      CHECK(sum.flops > 0);
      CHECK(sum.by_kind.count("optimizer") == (mode == "training" ? 1u : 0u));
    }
  }
}
