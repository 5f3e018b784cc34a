// issue=eager (workloads/eager_issue.hpp): every op of a model graph costs its host eager PyTorch's measured
// time, by its pass, so that a BERT layer of the Hugging Face graph costs what the measured layers did.
#include "graph_lookup.hpp"
#include "workloads/eager_issue.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

using namespace hs;

namespace {

// Host time of one encoder layer's ops ("layer5."), by pass.
struct LayerHost {
  double forward = 0.0, backward = 0.0, optimizer = 0.0;
  int forward_ops = 0, backward_ops = 0;
};
LayerHost layer_host(const Graph& g) {
  const OpRoles roles = roles_of(g);
  LayerHost h;
  for (std::size_t o = 0; o < g.ops.size(); ++o) {
    if (g.ops[o].name.rfind("layer5.", 0) != 0) continue;
    const double s = g.ops[o].host_issue;
    switch (roles.pass[o]) {
    case Pass::Forward:
      h.forward += s;
      ++h.forward_ops;
      break;
    case Pass::Backward:
      h.backward += s;
      ++h.backward_ops;
      break;
    case Pass::Optimizer:
      h.optimizer += s;
      break;
    }
  }
  return h;
}

} // namespace

TEST_CASE("eager issue: a Hugging Face BERT layer costs its host what the measured torch.nn layer did") {
  // The figures are the measured per-layer host times divided by this graph's ops per layer: if the layer
  // gains or loses an op, the per-op figures no longer add up to the measurement and must be derived again.
  const Graph inference = load_workload("bert-large:implementation=huggingface");
  const LayerHost i = layer_host(inference);
  CHECK(i.forward_ops == 17);
  CHECK(i.forward == doctest::Approx(121.46e-6).epsilon(1e-9));
  for (const Op& o : inference.ops)
    CHECK(o.host_issue == kEagerInferenceForwardIssue);
  const Graph training = load_workload("bert-large:implementation=huggingface,mode=training");
  const LayerHost t = layer_host(training);
  CHECK(t.forward_ops == 20);
  CHECK(t.forward == doctest::Approx(230.33e-6).epsilon(1e-9));
  CHECK(t.backward_ops == 34);
  CHECK(t.backward == doctest::Approx(268.63e-6).epsilon(1e-9));
  CHECK(t.optimizer == doctest::Approx(8 * kEagerBackwardIssue).epsilon(1e-9)); // 8 updates, as backward ops
  // Recording autograd's graph makes a training forward dearer to issue than an inference one.
  CHECK(kEagerTrainingForwardIssue > kEagerInferenceForwardIssue);
}

TEST_CASE("eager issue: captured is the reference implementation's default, eager Hugging Face's") {
  for (const char* spec :
       {"bert-large", "gpt2-small:implementation=huggingface,issue=captured", "resnet50"}) {
    CAPTURE(spec);
    for (const Op& o : load_workload(spec).ops)
      CHECK(o.host_issue == 0.0);
  }
  const Graph gpt2 = load_workload("gpt2-small:implementation=huggingface");
  CHECK(hs::test::op_named(gpt2, "h0.attn.softmax").host_issue == kEagerInferenceForwardIssue);
  // Any model builder takes it: torchvision's ResNet run eagerly.
  const Graph resnet = load_workload("resnet50:issue=eager,mode=training");
  const OpRoles roles = roles_of(resnet);
  for (std::size_t o = 0; o < resnet.ops.size(); ++o)
    CHECK(resnet.ops[o].host_issue ==
          (roles.pass[o] == Pass::Forward ? kEagerTrainingForwardIssue : kEagerBackwardIssue));
  CHECK_THROWS_WITH(load_workload("resnet50:issue=lazy"), doctest::Contains("issue"));
}
