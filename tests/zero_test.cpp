// ZeRO stages 1-3 (Rajbhandari et al., SC 2020) as data-parallel graph transformations: what each rank
// keeps (the paper's Figure 1), what it moves (section 7), and which copy each op reads.
#include "parallel_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/memory.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;

namespace {

constexpr int ranks = 4;

Graph zero_graph(const Graph& step, int stage) {
  DataParallelOptions o{gpus(ranks)};
  o.zero_stage = stage;
  return data_parallel(step, o);
}

// A mixed-precision GPT-2 small step: fp16 weights and gradients, Adam's fp32 master copy and moments.
const Graph& gpt2_fp16() {
  static const Graph g = load_workload("gpt2-small:mode=training,precision=fp16,batch=1,seq=32");
  return g;
}

struct ModelStates {
  double parameters = 0, gradients = 0, optimizer_state = 0;
};

// What the graph keeps on `device` for the model (the paper's "model states"): the weights resident on its
// ops, the optimizer state, and the gradients its optimizer ops read.
ModelStates model_states(const Graph& g, const std::string& device) {
  ModelStates s;
  for (const auto& op : g.ops)
    if (op.allowed_devices.at(0) == device)
      (op.kind == "optimizer" ? s.optimizer_state : s.parameters) += op.param_bytes;
  for (const auto& t : g.tensors)
    for (OpId c : t.consumers)
      if (g.op(c).kind == "optimizer" && g.op(c).allowed_devices.at(0) == device) s.gradients += t.bytes;
  return s;
}

double compute_flops(const Graph& g, bool optimizer) {
  double f = 0;
  for (const auto& op : g.ops)
    if (op.kind != "collective" && (op.kind == "optimizer") == optimizer) f += op.flops;
  return f;
}

double moved_bytes(const Graph& g) {
  const Platform& p = test::gpu_node();
  const CostModel cost(g, p);
  double bytes = 0;
  for (const auto& t : run_simgrid(pinned_plan(g, p), cost).transfers)
    bytes += t.bytes;
  return bytes;
}

bool from_collective(const Graph& g, TensorId t, const std::string& prefix, const std::string& device) {
  const Op& source = g.op(g.tensor(t).producer);
  return source.kind == "collective" && source.name.rfind(prefix, 0) == 0 &&
         source.allowed_devices.at(0) == device;
}

} // namespace

TEST_CASE("ZeRO keeps every stage's forward and backward FLOPs and shards the optimizer's") {
  const Graph& step = gpt2_fp16();
  for (int stage : {1, 2, 3}) {
    CAPTURE(stage);
    const Graph g = zero_graph(step, stage);
    CHECK(compute_flops(g, false) == doctest::Approx(ranks * compute_flops(step, false)).epsilon(1e-12));
    CHECK(compute_flops(g, true) == doctest::Approx(compute_flops(step, true)).epsilon(1e-12));
  }
}

TEST_CASE("each rank's model states follow ZeRO's Figure 1: 2, 2 and 12 bytes per parameter, sharded") {
  const Graph& step = gpt2_fp16();
  double psi = 0; // parameters: GPT-2 small's 124M (Radford et al. 2019), tied embeddings counted once
  for (const auto& op : step.ops)
    if (op.kind != "optimizer") psi += op.param_bytes / 2;
  CHECK(psi == doctest::Approx(124.4e6).epsilon(0.01));
  const double n = ranks, k = 12; // mixed-precision Adam: fp32 master weights, momentum and variance
  struct Expected {
    int stage;
    double parameters, gradients, optimizer_state; // bytes per rank, in units of psi
  };
  for (const Expected& e : {Expected{0, 2, 2, k}, Expected{1, 2, 2, k / n}, Expected{2, 2, 2 / n, k / n},
                            Expected{3, 2 / n, 2 / n, k / n}}) {
    CAPTURE(e.stage);
    const Graph g = e.stage == 0 ? data_parallel(step, {gpus(ranks)}) : zero_graph(step, e.stage);
    for (const std::string device : {"gpu0", "gpu3"}) {
      const ModelStates s = model_states(g, device);
      CHECK(s.parameters == doctest::Approx(e.parameters * psi).epsilon(1e-9));
      CHECK(s.gradients == doctest::Approx(e.gradients * psi).epsilon(1e-9));
      CHECK(s.optimizer_state == doctest::Approx(e.optimizer_state * psi).epsilon(1e-9));
    }
  }
}

TEST_CASE("ZeRO-1 and -2 move an all-reduce's bytes, ZeRO-3 1.5 times them (the paper's section 7)") {
  const Graph& step = gpt2_fp16();
  const double all_reduce = moved_bytes(data_parallel(step, {gpus(ranks)}));
  CHECK(moved_bytes(zero_graph(step, 1)) == doctest::Approx(all_reduce).epsilon(1e-9));
  CHECK(moved_bytes(zero_graph(step, 2)) == doctest::Approx(all_reduce).epsilon(1e-9));
  CHECK(moved_bytes(zero_graph(step, 3)) == doctest::Approx(1.5 * all_reduce).epsilon(1e-9));
}

TEST_CASE("ZeRO-3's layers read weights gathered on their own rank, optimizers read their reduced shard") {
  const Graph& step = gpt2_fp16();
  for (int stage : {2, 3}) {
    CAPTURE(stage);
    const Graph g = zero_graph(step, stage);
    int layers = 0, backward = 0, optimizers = 0;
    for (OpId o = 0; o < g.op_count(); ++o) {
      const Op& op = g.op(o);
      const std::string& device = op.allowed_devices.at(0);
      const auto reads_from = [&](const std::string& prefix) {
        return std::any_of(op.inputs.begin(), op.inputs.end(),
                           [&](TensorId t) { return from_collective(g, t, prefix, device); });
      };
      if (op.kind == "optimizer") {
        ++optimizers;
        REQUIRE(op.inputs.size() == 1);
        CHECK(from_collective(g, op.inputs[0], "reducescatter", device));
      } else if (stage == 3 && op.kind != "collective" && op.param_bytes > 0) {
        ++layers; // a layer that owns weights: the forward read of its bucket's gathered copy
        CHECK(reads_from(gathered_weights_prefix));
      } else if (stage == 3 && op.name.size() > 6 && op.name.compare(op.name.size() - 6, 6, ".wgrad") == 0) {
        ++backward;
        CHECK(reads_from(gathered_weights_prefix));
      } else if (stage == 2 && op.kind != "collective") {
        CHECK_FALSE(reads_from(gathered_weights_prefix));
      }
    }
    CHECK(optimizers > 0);
    if (stage == 3) CHECK(layers == optimizers);
    if (stage == 3) CHECK(backward >= layers);
  }
}

TEST_CASE("the memory report shows ZeRO-3's parameters as a shard plus the weights gathered at the peak") {
  const Platform& p = test::gpu_node();
  const Graph& step = gpt2_fp16();
  double weights = 0, largest_bucket = 0;
  for (const auto& op : step.ops)
    if (op.kind != "optimizer") weights += op.param_bytes;
  std::vector<double> peaks;
  for (int stage : {0, 1, 2, 3}) {
    const Graph g = stage == 0 ? data_parallel(step, {gpus(ranks)}) : zero_graph(step, stage);
    for (const auto& t : g.tensors)
      if (t.name.rfind("r0/paramgather", 0) == 0) largest_bucket = std::max(largest_bucket, t.bytes);
    const MemoryUsage m = hs::test::replayed_memory(g, p);
    const auto d = static_cast<std::size_t>(*p.find_device("gpu0"));
    const MemoryBreakdown& at = m.at_peak[d];
    CHECK(at.parameters + at.optimizer_state + at.gradients + at.activations + at.workspace ==
          doctest::Approx(m.peak[d]));
    if (stage < 3) CHECK(at.parameters == doctest::Approx(weights));
    if (stage == 3) {
      CHECK(at.parameters >= weights / ranks);
      CHECK(at.parameters <= weights / ranks + 3 * largest_bucket); // a use and its prefetch, at most
    }
    peaks.push_back(m.peak[d]);
  }
  CHECK(largest_bucket > 0);
  CHECK(largest_bucket < weights / 2);
  CHECK(peaks[1] < peaks[0]);
  CHECK(peaks[2] < peaks[1]);
  CHECK(peaks[3] < peaks[2]);
}

TEST_CASE("ZeRO refuses a stage that does not exist") {
  CHECK_THROWS_WITH(zero_graph(gpt2_fp16(), 4), doctest::Contains("ZeRO stage 4 does not exist"));
}
