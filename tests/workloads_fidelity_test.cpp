// Which implementation a transformer graph stands for: attention fused or eager, dropout in training, the
// LM head over the last token or all; the defaults leave the graphs as they were.
#include "sim/error.hpp"
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
