// Micro-batches without a pipeline (gradient accumulation, Megatron-LM's forward_backward_no_pipelining),
// gradients all-reduced only after the backward pass (Megatron-LM's own DDP of 2021), NCCL channels in the
// gradients' rings, and the tensor-parallel all-reduces that a recomputed forward repeats.
#include "parallel_support.hpp"
#include "sim/graph_builder.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/mesh_parallel.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <set>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;

namespace {

// The ops a step runs once, however many micro-batches: the updates, and the tied embedding's sum of its two
// gradients, each accumulated over the micro-batches first.
bool once_per_step(const Op& op) {
  return op.kind == "optimizer" || op.name.ends_with(".gradacc");
}

// The FLOPs of the ops run once per step, or of the others but the collectives' reductions.
double flops(const Graph& g, bool once) {
  double sum = 0;
  for (const auto& op : g.ops)
    if (once_per_step(op) == once && op.kind != "collective") sum += op.flops;
  return sum;
}

// Every op one after the other on gpu0's one stream: the makespan is the sum of the op times.
double serial_makespan(const Graph& g) {
  const Platform& p = test::gpu_node();
  const CostModel cost(g, p);
  Plan plan = Plan::empty(g.op_count(), p, "gpu0");
  for (OpId o : g.topological_order())
    plan.append(o, *p.find_device("gpu0"));
  return run_simgrid(plan, cost).makespan;
}

double optimizer_seconds(const Graph& g) {
  const CostModel cost(g, test::gpu_node());
  double sum = 0;
  for (OpId o = 0; o < g.op_count(); ++o)
    if (once_per_step(g.op(o))) sum += cost.op_time(o, *test::gpu_node().find_device("gpu0"));
  return sum;
}

std::set<OpId> ancestors(const Graph& g, OpId o) {
  std::set<OpId> seen;
  std::vector<OpId> todo{o};
  while (!todo.empty()) {
    const OpId x = todo.back();
    todo.pop_back();
    for (OpId p : g.predecessors(x))
      if (seen.insert(p).second) todo.push_back(p);
  }
  return seen;
}

const char* small_step = "gpt2-small:mode=training,heads=fused,batch=1,seq=32";

} // namespace

TEST_CASE("m micro-batches on one device: m forward-backward passes, one optimizer step, exact") {
  const Graph step = load_workload(small_step);
  const double fb = serial_makespan(step) - optimizer_seconds(step);
  for (int m : {2, 4}) {
    const Graph accum = pipeline_parallel(step, {gpus(1), m});
    CAPTURE(m);
    CHECK(accum.name == step.name + "-accum" + std::to_string(m));
    CHECK(flops(accum, false) == doctest::Approx(m * flops(step, false)).epsilon(1e-12));
    CHECK(flops(accum, true) == doctest::Approx(flops(step, true)).epsilon(1e-12));
    CHECK(serial_makespan(accum) == doctest::Approx(m * fb + optimizer_seconds(step)).epsilon(1e-6));
  }
}

TEST_CASE("gradient accumulation runs forward, backward, next: one micro-batch of activations at a time") {
  // Long sequences, so that a micro-batch's activations, not the weights and gradients, make the peak.
  const Graph step = load_workload("gpt2-small:mode=training,heads=fused,batch=2,seq=1024");
  const Platform& p = test::gpu_node();
  const auto gpu0 = static_cast<std::size_t>(*p.find_device("gpu0"));
  const auto activations = [&](const Graph& g) {
    const MemoryUsage m = test::replayed_memory(g, p);
    return m.at_peak[gpu0].activations;
  };
  const double one = activations(data_parallel(step, {gpus(2)})); // pinned, as the pipelines are
  const auto accumulated = [&](PipelineSchedule schedule) {
    return activations(data_parallel(pipeline_parallel(step, {gpus(1), 4, schedule}), {gpus(2)}));
  };
  const double four = accumulated(PipelineSchedule::OneForwardOneBackward);
  const double gpipe = accumulated(PipelineSchedule::GPipe);
  // Measured: 3.25 GB either way at the peak (the start of the last backward pass), 11.8 GB under GPipe.
  CHECK(four == doctest::Approx(one).epsilon(0.01));
  CHECK(gpipe > 3 * one); // GPipe's order on one stage would keep all four
}

TEST_CASE("tensor parallelism with accumulation: a one-stage mesh on the tp ranks, FLOPs kept") {
  const Graph step = load_workload(small_step);
  MeshOptions o;
  o.devices = gpus(4);
  o.data = 2;
  o.tensor = 2;
  o.pipeline_options.microbatches = 3;
  const Graph mesh = mesh_parallel(step, o);
  CHECK(mesh.name.find("-tp2-accum3") != std::string::npos);
  const Graph split = tensor_parallel(step, {gpus(2)});
  CHECK(flops(mesh, false) == doctest::Approx(2 * 3 * flops(split, false)).epsilon(1e-9));
}

TEST_CASE("overlap off: no gradient bucket is reduced before its device's whole backward pass") {
  const Graph step = load_workload(small_step);
  DataParallelOptions o;
  o.devices = gpus(2);
  o.bucket_bytes = 4 << 20;
  o.overlap = false;
  const Graph g = data_parallel(step, o);
  std::set<std::string> gradient_producers; // every weight gradient's producer in the step
  for (const auto& t : step.tensors)
    for (OpId c : t.consumers)
      if (step.op(c).kind == "optimizer") gradient_producers.insert(step.op(t.producer).name);
  int buckets = 0;
  for (OpId b = 0; b < g.op_count(); ++b) {
    const std::string& name = g.op(b).name;
    if (name.rfind("r0/grad_bucket", 0) != 0 || name.find('.') != std::string::npos) continue;
    ++buckets;
    std::set<std::string> before;
    for (OpId a : ancestors(g, b))
      before.insert(g.op(a).name);
    for (const auto& producer : gradient_producers)
      CHECK(before.count("r0/" + producer) == 1);
  }
  CHECK(buckets > 2);
  // and the replay: every all-reduce transfer starts after the last backward op ends
  const CostModel cost(g, test::gpu_node());
  const Execution e = run_simgrid(pinned_plan(g, test::gpu_node()), cost);
  double backward_end = 0, first_transfer = 1e30;
  for (OpId x = 0; x < g.op_count(); ++x) // the replicas' own ops ("r<i>/..."), collectives and updates aside
    if (g.op(x).name[0] == 'r' && g.op(x).kind != "collective" && g.op(x).kind != "optimizer" &&
        g.op(x).kind != "barrier")
      backward_end = std::max(backward_end, e.ops[static_cast<std::size_t>(x)].end);
  for (const auto& t : e.transfers)
    first_transfer = std::min(first_transfer, t.start);
  CHECK(first_transfer >= backward_end * (1 - 1e-12));
  o.overlap = true;
  const Graph overlapped = data_parallel(step, o);
  const CostModel cost_overlapped(overlapped, test::gpu_node());
  CHECK(run_simgrid(pinned_plan(overlapped, test::gpu_node()), cost_overlapped).makespan < e.makespan);
}

TEST_CASE("channels split each gradient ring into parallel rings of bytes / channels") {
  const Graph step = load_workload(small_step);
  DataParallelOptions o;
  o.devices = gpus(4);
  o.channels = 4;
  const Graph g = data_parallel(step, o);
  std::set<std::string> channels; // of the first bucket's all-reduce
  double sent = 0;
  for (const auto& op : g.ops)
    if (op.name.rfind("allreduce0.ch", 0) == 0 && op.name.rfind("allreduce0.channels", 0) != 0)
      channels.insert(op.name.substr(0, op.name.find('.', 11)));
  for (const auto& t : g.tensors)
    if (t.name.rfind("allreduce0.ch", 0) == 0 &&
        g.op(t.producer).allowed_devices != g.op(t.consumers.at(0)).allowed_devices)
      sent += t.bytes;
  CHECK(channels ==
        std::set<std::string>{"allreduce0.ch0", "allreduce0.ch1", "allreduce0.ch2", "allreduce0.ch3"});
  double bucket = 0; // ring all-reduce: every rank sends 2 (n-1)/n of the buffer, channels or not
  for (const auto& t : g.tensors)
    if (has_suffix(t.name, ".to_bucket") && g.op(t.consumers.at(0)).name == "r0/grad_bucket0")
      bucket += t.bytes;
  CHECK(sent == doctest::Approx(4 * 2 * 3.0 / 4 * bucket).epsilon(1e-9));
  o.algorithm = collectives::Algorithm::Tree;
  CHECK_THROWS_WITH(data_parallel(step, o), doctest::Contains("channels split ring"));
}

TEST_CASE("a recomputed tensor-parallel block repeats its two all-reduces, as Megatron-LM's does") {
  const std::string spec = "gpt2-small:mode=training,heads=fused,seq=32";
  const auto all_reduces = [](const Graph& g, bool recomputed) {
    int n = 0; // one ".partial_sums" op per all-reduce on rank 0, read by a residual add
    for (const auto& op : g.ops)
      if (op.name.rfind("t0/", 0) == 0)
        n += recomputed ? has_suffix(op.name, ".residual.recompute.partial_sums")
                        : has_suffix(op.name, ".residual.partial_sums");
    return n;
  };
  const Graph plain = tensor_parallel(load_workload(spec), {gpus(2)});
  const Graph again = tensor_parallel(load_workload(spec + ",recompute=full"), {gpus(2)});
  CHECK(all_reduces(plain, false) == 2 * 12);
  CHECK(all_reduces(plain, true) == 0);
  CHECK(all_reduces(again, false) == 2 * 12);
  CHECK(all_reduces(again, true) == 2 * 12);
}

TEST_CASE("the per-head passes of eager attention and its dropout are split with the heads, no all-reduce") {
  const auto collectives = [](const std::string& spec) {
    int n = 0;
    for (const auto& op : tensor_parallel(load_workload(spec), {gpus(2)}).ops)
      n += has_suffix(op.name, ".partial_sums");
    return n;
  };
  const std::string spec = "gpt2-small:mode=training,heads=fused,seq=32";
  const int plain = collectives(spec);
  CHECK(plain > 0);
  CHECK(collectives(spec + ",attention=eager,dropout=on") == plain);
}
