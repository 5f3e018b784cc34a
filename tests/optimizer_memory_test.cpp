// An optimizer step holds what its updates read until the device's last update ends: PyTorch keeps every
// `.grad` through `optimizer.step()` until `zero_grad()`, and foreach AdamW allocates its sqrt(v) list for
// all weights at once.
#include "graph_lookup.hpp"
#include "parallel_support.hpp"
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>

using namespace hs;

// l1.wgrad -> l1.adam, l2.wgrad -> l2.adam on one device, in that order. Sizes are distinct powers of two.
TEST_CASE("an optimizer step frees its gradients and workspaces when its last update ends") {
  const Platform p = test::switch_platform();
  GraphBuilder b("step");
  auto w1 = b.op("l1.wgrad").flops(1e12);
  auto u1 = b.op("l1.adam").kind("optimizer").flops(1e12).params(16).workspace(2);
  auto w2 = b.op("l2.wgrad").flops(1e12);
  auto u2 = b.op("l2.adam").kind("optimizer").flops(1e12).params(32).workspace(8);
  w1.feeds(u1, 1, "l1:dW");
  w2.feeds(u2, 4, "l2:dW");
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const DeviceId a = *p.find_device("a");
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  for (OpId o = 0; o < g.op_count(); ++o)
    plan.append(o, a);
  ContentionEvaluator evaluator(cost);
  const Execution evaluated = evaluator.run(plan);
  // State 16 + 32; while l2.adam runs: l1's gradient 1 and workspace 2, still held, beside l2's 4 and 8.
  // Freeing each update's buffers as it ends would give 48 + 12.
  CHECK(evaluator.peak_memory()[a] == doctest::Approx(48 + 15));
  for (const Execution& e : {run_analytic(plan, cost), run_simgrid(plan, cost), evaluated}) {
    CAPTURE(e.engine);
    const MemoryUsage m = memory_usage(plan, cost, e);
    CHECK(m.peak[a] == doctest::Approx(48 + 15));
    CHECK(m.at_peak[a].optimizer_state == 48);
    CHECK(m.at_peak[a].gradients == 5);
    CHECK(m.at_peak[a].workspace == 10);
    CHECK(m.peak_time[a] == doctest::Approx(e.ops[3].start));
  }
}

TEST_CASE("a foreach AdamW step peaks at five times the weights: weights, two moments, gradients, sqrt(v)") {
  const Platform p = load_platform("l4-server");
  const Graph g = load_workload("gpt2-small:batch=1,seq=64,mode=training,optimizer=foreach", 1);
  const CostModel cost(g, p);
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  for (OpId o : g.topological_order())
    plan.append(o, *p.find_device("gpu0"));
  ContentionEvaluator evaluator(cost);
  const Execution& e = evaluator.run(plan);
  const MemoryUsage m = memory_usage(plan, cost, e);
  const auto d = static_cast<std::size_t>(*p.find_device("gpu0"));
  const MemoryBreakdown& at = m.at_peak[d];
  CHECK(evaluator.peak_memory()[d] == doctest::Approx(m.peak[d]).epsilon(1e-12));
  CHECK(at.optimizer_state == doctest::Approx(2 * at.parameters).epsilon(1e-12));
  // One gradient per weight (the tied token embedding's two summed into one), and one sqrt(v) per weight.
  CHECK(at.gradients == doctest::Approx(at.parameters).epsilon(1e-12));
  CHECK(at.workspace == doctest::Approx(at.parameters).epsilon(1e-12));
  CHECK(at.activations == 0);
  CHECK(m.peak[d] == doctest::Approx(5 * at.parameters).epsilon(1e-12));
}

TEST_CASE("a tied weight's two gradients are summed into one before its update reads it") {
  const Graph g = load_workload("gpt2-small:batch=1,seq=64,mode=training", 1);
  const auto sums =
      std::count_if(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.name.ends_with(".gradacc"); });
  CHECK(sums == 1);
  const Op& table_update = test::op_named(g, "wte.adam");
  REQUIRE(table_update.inputs.size() == 1);
  const Tensor& grad = g.tensor(table_update.inputs.front());
  CHECK(g.op(grad.producer).name == "wte.gradacc");
  CHECK(grad.bytes == doctest::Approx(50257.0 * 768 * 4));
}

TEST_CASE("a training step's backward pass starts from the loss: its only sinks are the updates") {
  for (const char* workload : {"gpt2-small:batch=1,seq=64,mode=training",
                               "bert-base:batch=1,seq=64,mode=training,implementation=huggingface",
                               "resnet18:batch=1,mode=training"}) {
    CAPTURE(workload);
    const Graph g = load_workload(workload, 1);
    for (const Op& op : g.ops) {
      CAPTURE(op.name);
      if (op.kind != "optimizer") CHECK_FALSE(op.outputs.empty());
    }
  }
}

TEST_CASE("a pipeline sums a tied weight's gradients once a step, each accumulated over the micro-batches") {
  const Graph step = load_workload("gpt2-small:batch=4,seq=16,mode=training");
  const Graph g = pipeline_parallel(step, {test::gpus(2), 4, PipelineSchedule::OneForwardOneBackward});
  std::vector<const Op*> sums;
  for (const Op& op : g.ops)
    if (op.name.ends_with(".gradacc")) sums.push_back(&op);
  REQUIRE(sums.size() == 1);
  // It reads the last micro-batch's accumulated gradient of the LM head (last stage) and of the token
  // embedding (first stage), and runs on the first stage, which owns the table.
  std::vector<std::string> read;
  for (TensorId t : sums.front()->inputs)
    read.push_back(g.op(g.tensor(t).producer).name);
  std::sort(read.begin(), read.end());
  CHECK(read == std::vector<std::string>{"m3/lm_head.wgrad", "m3/wte.wgrad"});
  CHECK(sums.front()->allowed_devices == std::vector<std::string>{"gpu0"});
}
