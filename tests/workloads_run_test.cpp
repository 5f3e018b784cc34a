// Every model builder, in both modes, plans with HEFT and replays through both engines on every preset
// platform that is real hardware (small sizes: this checks the plumbing, not the numbers).
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/plan.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

TEST_CASE("Model builders run through the analytic and SimGrid engines on the hardware presets") {
  const std::vector<std::string> specs = {"resnet18:image=64,mode=training",
                                          "resnet50:image=64",
                                          "bert-base:seq=16,mode=training",
                                          "bert-large:seq=8",
                                          "gpt2-small:seq=8,decode=2",
                                          "gpt2-medium:seq=8,mode=training",
                                          "gcn:mode=training",
                                          "graphsage"};
  for (const std::string platform_name : {"workstation", "multi-gpu-node", "hetero-server"}) {
    const hs::Platform platform = hs::load_platform(platform_name);
    for (const auto& spec : specs) {
      CAPTURE(platform_name);
      CAPTURE(spec);
      const hs::Graph graph = hs::load_workload(spec);
      const hs::CostModel cost(graph, platform);
      const hs::Plan plan = hs::policy_by_name("heft").plan(hs::PolicyContext{cost, 0});
      hs::validate_plan(plan, cost);
      const hs::Execution analytic = hs::run_analytic(plan, cost);
      const hs::Execution replay = hs::run_simgrid(plan, cost);
      CHECK(analytic.makespan > 0);
      // Bandwidth sharing can only delay the replay relative to the contention-free timeline.
      CHECK(replay.makespan >= analytic.makespan * (1 - 1e-9));
      REQUIRE(replay.ops.size() == graph.ops.size());
      for (std::size_t i = 0; i < graph.ops.size(); ++i)
        CHECK(replay.ops[i].end >= replay.ops[i].start);
    }
  }
}

#include "sim/memory.hpp"

namespace {
bool is_backward(const std::string& op_name) {
  for (const char* suffix : {".dgrad", ".bwd", ".wgrad", ".adam"})
    if (op_name.find(suffix) != std::string::npos) return true;
  return false;
}

// Peak memory of a HEFT plan, summed over the platform's devices.
double summed_peak_memory_under_heft(const hs::Graph& graph, const hs::Platform& platform) {
  const hs::CostModel cost(graph, platform);
  const hs::Plan plan = hs::policy_by_name("heft").plan(hs::PolicyContext{cost, 0});
  double sum = 0;
  for (double p : hs::memory_usage(plan, cost, hs::run_analytic(plan, cost)).peak)
    sum += p;
  return sum;
}
} // namespace

TEST_CASE("Training peak memory holds every activation that backward reads, plus weights and Adam state") {
  const hs::Platform platform = hs::load_platform("workstation");
  const hs::Graph graph = hs::load_workload("bert-base:batch=16,seq=128,mode=training");
  double saved = 0, resident = 0;
  for (const auto& t : graph.tensors) {
    if (is_backward(graph.op(t.producer).name)) continue;
    bool read_by_backward = false;
    for (hs::OpId c : t.consumers)
      read_by_backward |= is_backward(graph.op(c).name);
    if (read_by_backward) saved += t.bytes;
  }
  for (const auto& op : graph.ops)
    resident += op.param_bytes;
  const double peaks = summed_peak_memory_under_heft(graph, platform);
  // When the loss runs, no backward op has started, so every saved activation is still allocated.
  CHECK(saved > 0.5 * resident); // activations matter at this size: the check below has teeth
  CHECK(peaks >= resident + saved);

  const double ipeaks =
      summed_peak_memory_under_heft(hs::load_workload("bert-base:batch=16,seq=128"), platform);
  CHECK(ipeaks < resident / 3 + saved / 4); // inference frees activations as it goes and holds no Adam state
}
