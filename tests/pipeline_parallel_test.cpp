// Pipeline parallelism: GPipe's bubble (Huang et al. 2019: (p-1)/(m+p-1) of the step idle for p equal
// stages and m micro-batches), 1F1B's bound on activations in flight (Narayanan et al. 2021: at most p
// micro-batches on the first stage), and stages as contiguous, balanced cuts.
#include "parallel_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/training_metrics.hpp"
#include "workloads/mesh_parallel.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <set>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;

namespace {

const Platform& node() {
  return test::gpu_node();
}

std::string layer(int i, const char* suffix = "") {
  std::string name = "l";
  return name.append(std::to_string(i)).append(suffix); // append: GCC 12's -Wrestrict misfires on +
}

// `layers` equal layers: forward F FLOPs, backward 2F, each saving `saved` bytes for its backward.
Graph equal_layers(int layers, double saved) {
  GraphBuilder b("equal");
  std::vector<OpHandle> fwd, bwd;
  for (int i = 0; i < layers; ++i) {
    fwd.push_back(b.op(layer(i)).kind("gemm").flops(1e11));
    bwd.push_back(b.op(layer(i, ".dgrad")).kind("gemm").flops(2e11));
  }
  for (int i = 0; i < layers; ++i) {
    if (i + 1 < layers) fwd[static_cast<std::size_t>(i)].feeds(fwd[static_cast<std::size_t>(i) + 1], 1e3);
    if (i > 0) bwd[static_cast<std::size_t>(i)].feeds(bwd[static_cast<std::size_t>(i) - 1], 1e3);
    fwd[static_cast<std::size_t>(i)].feeds(bwd[static_cast<std::size_t>(i)], saved);
  }
  return std::move(b).build();
}

struct Replayed {
  double makespan;
  MemoryUsage memory;
};

Replayed replay(const Graph& g) {
  const CostModel cost(g, node());
  const Plan plan = pinned_plan(g, node(), false);
  const Execution e = run_simgrid(plan, cost);
  return {e.makespan, memory_usage(plan, cost, e)};
}

double seconds_on_gpu(double flops) {
  GraphBuilder b("probe");
  b.op("probe").kind("gemm").flops(flops);
  const Graph g = std::move(b).build();
  return CostModel(g, node()).op_time(0, *node().find_device("gpu0"));
}

} // namespace

TEST_CASE("GPipe and 1F1B over p equal stages idle (p-1)/(m+p-1) of the step") {
  const int p = 4;
  const double stage = seconds_on_gpu(1e11) + seconds_on_gpu(2e11); // one micro-batch, forward + backward
  for (auto schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneForwardOneBackward})
    for (int m : {1, 4, 8}) {
      const double t = replay(pipeline_parallel(equal_layers(p, 1e3), {gpus(p), m, schedule})).makespan;
      const double bubble = 1 - m * stage / t;
      CAPTURE(m);
      CAPTURE(static_cast<int>(schedule));
      CHECK(bubble == doctest::Approx((p - 1.0) / (m + p - 1.0)).epsilon(0.02));
    }
}

TEST_CASE("1F1B keeps at most p micro-batches of activations on the first stage, GPipe keeps all m") {
  const int p = 4, m = 8;
  const double saved = 1e9; // each layer's saved activation, per micro-batch
  const Replayed gpipe =
      replay(pipeline_parallel(equal_layers(p, saved), {gpus(p), m, PipelineSchedule::GPipe}));
  const Replayed one_f_one_b = replay(
      pipeline_parallel(equal_layers(p, saved), {gpus(p), m, PipelineSchedule::OneForwardOneBackward}));
  const DeviceId first = *node().find_device("gpu0");
  const double gpipe_peak = gpipe.memory.peak[static_cast<std::size_t>(first)];
  const double ofob_peak = one_f_one_b.memory.peak[static_cast<std::size_t>(first)];
  CHECK(gpipe_peak >= m * saved);
  CHECK(ofob_peak <= p * saved + 1e6);
  CHECK(ofob_peak >= p * saved); // the warm-up really puts p in flight
}

TEST_CASE("stages are contiguous cuts balanced on forward and backward FLOPs, and FLOPs are kept") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  const auto stage = pipeline_stages(step, 4);
  std::vector<double> work(4, 0.0);
  int last = 0;
  for (OpId o : step.topological_order()) {
    const Op& op = step.op(o);
    const bool forward = op.kind != "optimizer" && op.name.find(".dgrad") == std::string::npos &&
                         op.name.find(".wgrad") == std::string::npos &&
                         op.name.find(".bwd") == std::string::npos;
    if (forward) {
      CHECK(stage[static_cast<std::size_t>(o)] >= last); // forward ops never go back a stage
      last = stage[static_cast<std::size_t>(o)];
    }
    if (op.kind != "optimizer")
      work[static_cast<std::size_t>(stage[static_cast<std::size_t>(o)])] += op.flops;
  }
  const double mean = (work[0] + work[1] + work[2] + work[3]) / 4;
  for (double w : work)
    CHECK(std::abs(w - mean) / mean < 0.25);
  const int m = 4;
  const Graph pp = pipeline_parallel(step, {gpus(4), m, PipelineSchedule::OneForwardOneBackward});
  double step_flops = 0, optimizer = 0, pp_flops = 0;
  for (const auto& op : step.ops)
    (op.kind == "optimizer" ? optimizer : step_flops) += op.flops;
  for (const auto& op : pp.ops)
    pp_flops += op.flops;
  CHECK(pp_flops == doctest::Approx(m * step_flops + optimizer).epsilon(1e-12)); // one optimizer step
}

TEST_CASE("a pipeline refuses what it cannot do, saying why") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  CHECK_THROWS_WITH(pipeline_parallel(step, {gpus(0), 4}), doctest::Contains("at least 1 stage"));
  CHECK_THROWS_WITH(pipeline_parallel(step, {gpus(1), 4, PipelineSchedule::OneForwardOneBackward, 2}),
                    doctest::Contains("interleaved chunks need a pipeline of at least 2 stages"));
  CHECK_THROWS_WITH(pipeline_parallel(step, {gpus(2), 0}), doctest::Contains("at least 1 micro-batch"));
  CHECK_THROWS_WITH(pipeline_parallel(load_workload("bert-base:batch=1,seq=32"), {gpus(2), 2}),
                    doctest::Contains("no backward pass"));
  CHECK_THROWS_WITH(pipeline_parallel(equal_layers(2, 1e3), {gpus(3), 2}),
                    doctest::Contains("needs at least 3 layers"));
}

TEST_CASE(
    "training metrics: the idle share of a pipeline's devices is its bubble, and MFU counts model FLOPs") {
  const int p = 4, m = 4;
  const Graph g =
      pipeline_parallel(equal_layers(p, 1e3), {gpus(p), m, PipelineSchedule::OneForwardOneBackward});
  const CostModel cost(g, node());
  const Plan plan = pinned_plan(g, node(), false);
  const Execution e = run_simgrid(plan, cost);
  const TrainingMetrics t = training_metrics(plan, cost, e);
  CHECK(t.devices == p);
  CHECK(t.idle_fraction == doctest::Approx((p - 1.0) / (m + p - 1.0)).epsilon(0.02));
  CHECK(t.model_flops == doctest::Approx(m * p * 3e11));
  CHECK(t.mfu == doctest::Approx(t.model_flops / (e.makespan * p * 19.5e12)));
  // Activations cross stage boundaries as transfers that the next stage waits for: exposed, and tiny.
  CHECK(t.exposed > 0);
  CHECK(t.exposed <= t.communication);
}

TEST_CASE("interleaved 1F1B over v chunks per device idles (p-1)/(v m + p-1), the bubble over v") {
  // Narayanan et al. 2021, section 2.2.2: the bubble is (1/v)(p-1)/m of the ideal time, so the idle share of
  // the step is (p-1)/v over m + (p-1)/v.
  const int p = 4;
  const double chunk = seconds_on_gpu(1e11) + seconds_on_gpu(2e11); // one layer, forward + backward
  for (int v : {2, 3})
    for (int m : {4, 8}) {
      PipelineOptions o{gpus(p), m};
      o.interleave = v;
      const Graph g = pipeline_parallel(equal_layers(p * v, 1e3), o);
      for (int c = 0; c < p * v; ++c) // chunk c, one layer here, on device c mod p
        CHECK(g.op(*g.find_op("m0/" + layer(c))).allowed_devices.at(0) == "gpu" + std::to_string(c % p));
      const double t = replay(g).makespan;
      CAPTURE(v);
      CAPTURE(m);
      CHECK(1 - m * v * chunk / t == doctest::Approx((p - 1.0) / (v * m + p - 1.0)).epsilon(0.02));
    }
}

TEST_CASE("one chunk per device is plain 1F1B, op for op") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  PipelineOptions plain{gpus(4), 8}, one{gpus(4), 8};
  one.interleave = 1;
  const Graph a = pipeline_parallel(step, plain), b = pipeline_parallel(step, one);
  REQUIRE(a.op_count() == b.op_count());
  REQUIRE(a.tensor_count() == b.tensor_count());
  for (OpId o = 0; o < a.op_count(); ++o)
    CHECK(a.op(o).name == b.op(o).name);
  CHECK(replay(a).makespan == replay(b).makespan);
  // The interleaved schedule's order, as Megatron-LM runs it: stage 0 of 2, 2 chunks, 4 micro-batches warms
  // up with (p-s-1)*2 + (v-1)*p = 4 forwards: micro-batches 0, 1 of chunk 0, then 0, 1 of chunk 1.
  const auto order = stage_order(PipelineSchedule::OneForwardOneBackward, 0, 2, 4, 2);
  REQUIRE(order.size() == 16);
  const std::vector<std::pair<int, int>> warmup = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  for (std::size_t i = 0; i < warmup.size(); ++i) {
    CHECK(order[i].microbatch == warmup[i].first);
    CHECK(order[i].chunk == warmup[i].second);
    CHECK_FALSE(order[i].backward);
  }
  CHECK(order[5].backward); // then 1F1B: the first backward is micro-batch 0's on the last chunk
  CHECK(order[5].microbatch == 0);
  CHECK(order[5].chunk == 1);
  PipelineOptions gpipe{gpus(2), 4, PipelineSchedule::GPipe};
  gpipe.interleave = 2;
  CHECK_THROWS_WITH(pipeline_parallel(step, gpipe), doctest::Contains("not GPipe"));
}

TEST_CASE("a weight's gradient is accumulated in place: a stage holds one per weight, whatever the "
          "micro-batches") {
  const Graph step = load_workload("bert-base:mode=training,batch=1,seq=32");
  const auto gradients_at_peak = [&](int m) {
    const Graph pp = pipeline_parallel(step, {gpus(2), m, PipelineSchedule::OneForwardOneBackward});
    return replay(pp).memory.at_peak[static_cast<std::size_t>(*node().find_device("gpu0"))].gradients;
  };
  double biggest = 0; // the gradient being added to while its predecessor is still live
  for (const auto& t : step.tensors)
    if (step.op(t.producer).name.ends_with(".wgrad")) biggest = std::max(biggest, t.bytes);
  const double one = gradients_at_peak(1);
  CHECK(one > 0);
  CHECK(gradients_at_peak(8) <= one + biggest);

  const int m = 4;
  const Graph pp = pipeline_parallel(step, {gpus(2), m, PipelineSchedule::OneForwardOneBackward});
  for (const auto& t : pp.tensors) {
    const Op& producer = pp.op(t.producer);
    if (!producer.name.ends_with(".wgrad")) continue;
    std::string last_prefix = "m";
    last_prefix.append(std::to_string(m - 1)).append("/");
    const bool last = producer.name.starts_with(last_prefix);
    for (OpId c : t.consumers) {
      if (pp.op(c).kind == "barrier") continue; // the schedule's order, not data
      CAPTURE(t.name);
      if (last) {
        CHECK(pp.op(c).kind == "optimizer");
      } else { // the next micro-batch's op of the same weight adds to it
        const std::size_t slash = producer.name.find('/');
        std::string next = "m";
        next.append(std::to_string(std::stoi(producer.name.substr(1, slash - 1)) + 1))
            .append(producer.name.substr(slash)); // append: GCC 12's -Wrestrict misfires on +
        CHECK(pp.op(c).name == next);
      }
    }
  }
}

TEST_CASE(
    "stages cut between checkpointed blocks, never inside one, so interleaved recomputation has no cycle") {
  const Graph step = load_workload("gpt2-small:mode=training,heads=fused,seq=32,recompute=full");
  for (int chunks : {2, 3, 5, 8}) {
    CAPTURE(chunks);
    const std::vector<int> stage = pipeline_stages(step, chunks);
    std::map<std::string, std::set<int>> stages_of_block;
    for (OpId o = 0; o < step.op_count(); ++o) {
      const std::string& name = step.op(o).name;
      if (name.rfind('h', 0) == 0 && step.find_op(name + ".recompute"))
        stages_of_block[name.substr(0, name.find('.'))].insert(stage[static_cast<std::size_t>(o)]);
    }
    CHECK(stages_of_block.size() == 12);
    for (const auto& entry : stages_of_block) { // not a structured binding: clang 14 cannot capture one
      CAPTURE(entry.first);
      CHECK(entry.second.size() == 1);
    }
    CHECK(*std::max_element(stage.begin(), stage.end()) == chunks - 1);
  }
  // 12 blocks in 8 chunks over 4 stages, split over 2 ranks each: an acyclic graph (build() checks).
  MeshOptions mesh;
  mesh.devices = test::gpus(8);
  mesh.tensor = 2;
  mesh.pipeline = 4;
  mesh.pipeline_options.microbatches = 4;
  mesh.pipeline_options.interleave = 2;
  CHECK_NOTHROW(mesh_parallel(step, mesh).topological_order());
}

TEST_CASE("Megatron-LM's cut: the same number of layers per chunk, embeddings first, head and loss last") {
  const Graph step = load_workload("gpt2-small:mode=training,heads=fused,seq=32,recompute=full");
  const std::vector<int> chunk = pipeline_stages(step, 4, "", true);
  const auto chunk_of = [&](const std::string& name) {
    return chunk[static_cast<std::size_t>(*step.find_op(name))];
  };
  for (int b = 0; b < 12; ++b) {
    const std::string block = std::string("h").append(std::to_string(b)); // GCC 12 -Wrestrict on +
    CAPTURE(block);
    for (const char* op : {".ln1", ".mlp.residual", ".mlp.fc1.wgrad"}) // a layer's backward goes with it
      CHECK(chunk_of(std::string(block).append(op)) == b / 3);
  }
  CHECK(chunk_of("wte") == 0);
  CHECK(chunk_of("lm_head") == 3);
  CHECK(chunk_of("loss") == 3);
  // Balanced on FLOPs instead, the head's chunk takes fewer layers.
  const std::vector<int> balanced = pipeline_stages(step, 4);
  CHECK(balanced[static_cast<std::size_t>(*step.find_op("h8.ln1"))] < 3);
  CHECK_THROWS_WITH(pipeline_stages(step, 5, "", true), doctest::Contains("12 layers to divide among the 5"));
  CHECK_THROWS_WITH(pipeline_stages(load_workload("gpt2-small:mode=training,seq=32"), 4, "", true),
                    doctest::Contains("recompute=full"));
}
