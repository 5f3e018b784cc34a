// Data parallelism as a graph transformation: replicas, gradient buckets, one all-reduce per bucket.
#include "parallel_support.hpp"
#include "policies/policy.hpp"
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/training_metrics.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <set>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;

namespace {

// Bytes of every tensor an optimizer op reads: the gradients.
double gradient_bytes(const Graph& g) {
  double bytes = 0;
  for (const auto& t : g.tensors)
    if (std::any_of(t.consumers.begin(), t.consumers.end(),
                    [&](OpId c) { return g.op(c).kind == "optimizer"; }))
      bytes += t.bytes;
  return bytes;
}

double flops_of(const Graph& g, bool with_optimizer) {
  double f = 0;
  for (const auto& op : g.ops)
    if (op.kind != "collective" && (with_optimizer || op.kind != "optimizer")) f += op.flops;
  return f;
}

} // namespace

TEST_CASE("data parallelism replicates the step exactly: N replicas of batch b/N do the FLOPs of batch b") {
  const Graph whole = load_workload("bert-base:mode=training,batch=8,seq=64");
  const Graph slice = load_workload("bert-base:mode=training,batch=2,seq=64");
  const Graph dp = data_parallel(slice, {gpus(4)});
  CHECK(flops_of(dp, true) == doctest::Approx(4 * flops_of(slice, true)).epsilon(1e-12));
  // Forward and backward are linear in the batch; each replica runs its own optimizer step.
  CHECK(flops_of(dp, false) == doctest::Approx(flops_of(whole, false)).epsilon(1e-12));
  for (const auto& op : dp.ops) {
    REQUIRE(op.allowed_devices.size() == 1);
    const std::string replica = op.name.substr(0, op.name.find('/'));
    if (op.kind != "collective") CHECK(op.allowed_devices[0] == "gpu" + replica.substr(1));
  }
}

TEST_CASE("every replica's optimizer reads its gradients from the all-reduce on its own rank") {
  const Graph step = load_workload("resnet18:mode=training,batch=2,image=64");
  const Graph dp = data_parallel(step, {gpus(4), 8.0 * (1 << 20)});
  int optimizers = 0;
  for (OpId o = 0; o < dp.op_count(); ++o) {
    const Op& op = dp.op(o);
    if (op.kind != "optimizer") continue;
    ++optimizers;
    REQUIRE_FALSE(op.inputs.empty());
    for (TensorId t : op.inputs) {
      const Op& source = dp.op(dp.tensor(t).producer);
      CHECK(source.kind == "collective");
      CHECK(source.name.rfind("allreduce", 0) == 0);
      CHECK(source.name.find(".ag3.") != std::string::npos); // the last all-gather step of a 4-rank ring
      CHECK(source.allowed_devices == op.allowed_devices);
    }
  }
  int step_optimizers = 0;
  for (const auto& op : step.ops)
    step_optimizers += op.kind == "optimizer";
  CHECK(optimizers == 4 * step_optimizers);
}

TEST_CASE("gradients are bucketed in backward order, each bucket but the last at least the cap") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  const double cap = 25.0 * (1 << 20);
  const Graph dp = data_parallel(step, {gpus(2), cap});
  const double grads = gradient_bytes(step);
  std::vector<double> buckets;
  for (const auto& t : dp.tensors)
    if (t.name.rfind("r0/", 0) == 0 && t.name.size() > 10 &&
        t.name.substr(t.name.size() - 10) == ".to_bucket") {
      const std::string bucket = dp.op(t.consumers.at(0)).name;
      const auto k = static_cast<std::size_t>(std::stoi(bucket.substr(bucket.find("grad_bucket") + 11)));
      if (buckets.size() <= k) buckets.resize(k + 1);
      buckets[k] += t.bytes;
    }
  REQUIRE(buckets.size() >= 2);
  double sum = 0;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    sum += buckets[k];
    if (k + 1 < buckets.size()) CHECK(buckets[k] >= cap);
  }
  CHECK(sum == doctest::Approx(grads));
}

TEST_CASE(
    "a data-parallel step hides most of its all-reduces behind the backward pass, as DDP's buckets do") {
  const Platform p = load_platform("multi-gpu-node");
  const Graph step = load_workload("bert-base:mode=training,batch=2,seq=64");
  const Graph dp = data_parallel(step, {gpus(8)});
  Plan one = Plan::empty(step.op_count(), p, "one GPU");
  for (OpId o : step.topological_order())
    one.append(o, *p.find_device("gpu0"));
  const double alone = run_simgrid(one, CostModel(step, p)).makespan;
  const CostModel cost(dp, p);
  const double t = run_simgrid(pinned_plan(dp, p), cost).makespan;
  // Gradients of all of BERT-base, all-reduced with nothing to overlap, bound the exposed part from above.
  const double grads = gradient_bytes(step);
  const Route& r = *p.route(*p.find_device("gpu0"), *p.find_device("gpu1"));
  const double all_reduce = 2.0 * 7 / 8 * grads / r.bandwidth;
  CHECK(t > alone * 0.999);
  CHECK(t < alone + 0.5 * all_reduce); // one bucket at the end cannot overlap; the others mostly do
}

TEST_CASE("data parallelism refuses what it cannot do, saying why") {
  const Graph inference = load_workload("bert-base:batch=1,seq=32");
  CHECK_THROWS_WITH(data_parallel(inference, {gpus(2)}), doctest::Contains("no optimizer op"));
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  CHECK_THROWS_WITH(data_parallel(step, {gpus(1)}), doctest::Contains("at least 2 replicas"));
}

TEST_CASE("as-pinned places every op where it is pinned, collectives on their own stream") {
  const Platform p = load_platform("multi-gpu-node");
  const Graph dp = data_parallel(load_workload("bert-base:mode=training,batch=1,seq=32"), {gpus(4)});
  const CostModel cost(dp, p);
  const Policy& as_pinned = policy_by_name("as-pinned");
  const Plan plan = as_pinned.plan(PolicyContext{cost});
  // It leaves itself out of comparisons over ordinary graphs (an optional method; heft has the default).
  CHECK_FALSE(as_pinned.in_comparisons());
  CHECK(policy_by_name("heft").in_comparisons());
  const auto compared = compared_policy_names();
  CHECK(std::find(compared.begin(), compared.end(), "as-pinned") == compared.end());
  CHECK(std::find(compared.begin(), compared.end(), "heft") != compared.end());
  validate_plan(plan, cost);
  for (OpId o = 0; o < dp.op_count(); ++o) {
    CHECK(p.devices[static_cast<std::size_t>(plan.device[static_cast<std::size_t>(o)])].name ==
          dp.op(o).allowed_devices.at(0));
    CHECK(plan.stream[static_cast<std::size_t>(o)] == (dp.op(o).kind == "collective" ? 1 : 0));
  }
  // The hand-made plan of the other tests is the same plan.
  CHECK(run_simgrid(plan, cost).makespan == doctest::Approx(run_simgrid(pinned_plan(dp, p), cost).makespan));
}

TEST_CASE("communication counts as exposed only where no compute runs on the device") {
  const Platform p = load_platform("multi-gpu-node");
  GraphBuilder b("hand");
  b.op("compute").kind("gemm").flops(1e9);
  b.op("step").kind("collective");
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(g.op_count(), p, "hand");
  plan.append(0, *p.find_device("gpu0"));
  plan.append(1, *p.find_device("gpu0"), 1);
  Execution e;
  e.makespan = 4;
  e.ops = {{0, 2}, {1, 3}}; // compute 0-2 s, the collective step 1-3 s
  e.transfers.push_back({0, *p.find_device("gpu0"), *p.find_device("gpu1"), 1e6, 3.5, 4.0});
  const TrainingMetrics t = training_metrics(plan, cost, e);
  CHECK(t.devices == 1);                          // gpu1 only received
  CHECK(t.communication == doctest::Approx(2.5)); // 1-3 s and 3.5-4 s
  CHECK(t.exposed == doctest::Approx(1.5));       // 2-3 s and 3.5-4 s
  CHECK(t.idle_fraction == doctest::Approx(0.5));
}

TEST_CASE("data parallelism composes: replicas of a tensor-parallel step all-reduce among same-shard ranks") {
  const Graph step = load_workload("bert-base:mode=training,heads=fused,batch=1,seq=32");
  const Graph tp = tensor_parallel(step, {gpus(2)});
  const Graph both = data_parallel(tp, {gpus(8)}); // 4 replicas of a 2-GPU step
  CHECK(flops_of(both, true) == doctest::Approx(4 * flops_of(tp, true)).epsilon(1e-12));
  std::set<std::set<std::string>> groups; // the devices of each gradient all-reduce
  std::map<std::string, std::set<std::string>> devices_of;
  for (const auto& op : both.ops)
    if (op.name.rfind("allreduce", 0) == 0 && op.name.find(".rs1.") != std::string::npos)
      devices_of[op.name.substr(0, op.name.find('.'))].insert(op.allowed_devices.at(0));
  for (const auto& [name, devices] : devices_of)
    groups.insert(devices);
  CHECK(groups ==
        std::set<std::set<std::string>>{{"gpu0", "gpu2", "gpu4", "gpu6"}, {"gpu1", "gpu3", "gpu5", "gpu7"}});
  CHECK_THROWS_WITH(data_parallel(tp, {gpus(3)}), doctest::Contains("multiple of 2"));
}

TEST_CASE("replicas of a pipeline all-reduce each weight's gradient once, not once per micro-batch") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  const int m = 4;
  const Graph pp = pipeline_parallel(step, {gpus(2), m, PipelineSchedule::OneForwardOneBackward});
  const Graph both = data_parallel(pp, {gpus(4)});
  double reduced = 0, once = 0;
  for (const auto& t : both.tensors)
    if (t.name.rfind("r0/", 0) == 0 && t.name.size() > 9 && t.name.substr(t.name.size() - 9) == ".gradient")
      reduced += t.bytes;
  for (OpId o = 0; o < step.op_count(); ++o)
    if (step.op(o).kind == "optimizer") {
      double largest = 0;
      for (TensorId t : step.op(o).inputs)
        largest = std::max(largest, step.tensor(t).bytes);
      once += largest;
    }
  CHECK(reduced == doctest::Approx(once));
}

TEST_CASE("ZeRO-1 keeps 1/n of the optimizer state per rank and moves the bytes of an all-reduce") {
  const Platform& p = test::gpu_node();
  const Graph step = load_workload("gpt2-small:mode=training,batch=1,seq=64");
  const int n = 4;
  DataParallelOptions plain{gpus(n)}, zero{gpus(n)};
  zero.zero_stage = 1;
  const Graph a = data_parallel(step, plain), b = data_parallel(step, zero);
  const auto state_on_gpu0 = [](const Graph& g) {
    double bytes = 0;
    for (const auto& op : g.ops)
      if (op.kind == "optimizer" && op.allowed_devices.at(0) == "gpu0") bytes += op.param_bytes;
    return bytes;
  };
  CHECK(state_on_gpu0(b) == doctest::Approx(state_on_gpu0(a) / n).epsilon(1e-12));
  const CostModel ca(a, p), cb(b, p);
  const Plan pa = pinned_plan(a, p), pb = pinned_plan(b, p);
  const Execution ea = run_simgrid(pa, ca), eb = run_simgrid(pb, cb);
  double moved_a = 0, moved_b = 0;
  for (const auto& t : ea.transfers)
    moved_a += t.bytes;
  for (const auto& t : eb.transfers)
    moved_b += t.bytes;
  CHECK(moved_b == doctest::Approx(moved_a).epsilon(1e-9)); // reduce-scatter + all-gather = all-reduce
  const DeviceId gpu0 = *p.find_device("gpu0");
  CHECK(memory_usage(pb, cb, eb).peak[static_cast<std::size_t>(gpu0)] <
        memory_usage(pa, ca, ea).peak[static_cast<std::size_t>(gpu0)]);
  zero.zero_stage = 4;
  CHECK_THROWS_WITH(data_parallel(step, zero), doctest::Contains("ZeRO stage 4 does not exist"));
}

TEST_CASE("a device's peak splits into parameters, optimizer state, gradients, activations and workspace") {
  const Platform& p = test::gpu_node();
  const Graph step = load_workload("gpt2-small:mode=training,batch=1,seq=64");
  for (int zero : {0, 1}) {
    DataParallelOptions o{gpus(2)};
    o.zero_stage = zero;
    const Graph g = data_parallel(step, o);
    const MemoryUsage m = hs::test::replayed_memory(g, p);
    const auto d = static_cast<std::size_t>(*p.find_device("gpu0"));
    const MemoryBreakdown& at = m.at_peak[d];
    CHECK(at.parameters + at.optimizer_state + at.gradients + at.activations + at.workspace ==
          doctest::Approx(m.peak[d]));
    double weights = 0; // GPT-2 small's fp32 weights: Adam keeps 8 bytes of state per 4 of weight
    for (const auto& op : step.ops)
      if (op.kind != "optimizer") weights += op.param_bytes;
    CHECK(at.parameters == doctest::Approx(weights));
    CHECK(at.optimizer_state == doctest::Approx(2 * weights / (zero ? 2 : 1)));
    // At seq 64 the peak is in the optimizer step, which holds every reduced gradient until its last update
    // ends (ZeRO-1 keeps them whole too), beside the last bucket's all-reduce buffers: measured 1.62 times
    // the weights, with the activations all freed.
    CHECK(at.gradients >= weights);
    CHECK(at.gradients < 2 * weights);
    CHECK(at.activations == 0);
  }
}
