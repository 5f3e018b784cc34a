// The search evaluates rewrites on flat arrays it builds without a Graph (rewritten_model.hpp). They must
// be exactly what the Graph built with names gives: the same arrays, costs and order, so the same plans
// and the same evaluations, on random decisions over models with fusions, splits and demotions.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/placement_order.hpp"
#include "sim/contention_engine.hpp"
#include "sim/random.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace hs;
using namespace hs::pareto;

namespace {

void check_same_arrays(const FlatGraph& a, const FlatGraph& b) {
  REQUIRE(a.op_count() == b.op_count());
  REQUIRE(a.tensor_count() == b.tensor_count());
  CHECK(a.topological_order() == b.topological_order());
  for (std::size_t o = 0; o < a.op_count(); ++o) {
    CHECK(std::vector<TensorId>(a.inputs(o).begin(), a.inputs(o).end()) ==
          std::vector<TensorId>(b.inputs(o).begin(), b.inputs(o).end()));
    CHECK(std::vector<TensorId>(a.outputs(o).begin(), a.outputs(o).end()) ==
          std::vector<TensorId>(b.outputs(o).begin(), b.outputs(o).end()));
    CHECK(a.workspace_bytes(o) == b.workspace_bytes(o));
    CHECK(a.param_bytes(o) == b.param_bytes(o));
    CHECK(a.alloc_at_start(o) == b.alloc_at_start(o));
  }
  for (std::size_t t = 0; t < a.tensor_count(); ++t) {
    CHECK(a.tensor_bytes(t) == b.tensor_bytes(t));
    CHECK(a.producer(t) == b.producer(t));
    CHECK(a.comm_time(t) == b.comm_time(t));
    CHECK(std::vector<OpId>(a.consumers(t).begin(), a.consumers(t).end()) ==
          std::vector<OpId>(b.consumers(t).begin(), b.consumers(t).end()));
  }
}

} // namespace

TEST_CASE("a rewrite's flat arrays and costs equal its Graph's, and evaluate the same") {
  const Platform platform = load_platform("hetero-server");
  for (const std::string spec : {"resnet50:precision=fp16", "bert-base:seq=64,mode=training",
                                 "gpt2-small:seq=32,decode=2", "random:ops=300,precision=fp16"}) {
    CAPTURE(spec);
    const Graph g = load_workload(spec, 3);
    const CostModel cost(g, platform);
    const Encoding enc(cost, {});
    Rng rng(11);
    int rewritten = 0;
    for (int trial = 0; trial < 6; ++trial) {
      Genome genome(enc.size());
      for (std::size_t k = 0; k < genome.size(); ++k)
        genome[k] = static_cast<int>(rng.integer(0, enc.upper()[k]));
      const Decoded d = enc.decode(genome);
      if (!d.rewritten) continue;
      ++rewritten;
      const RewrittenModel& m = *d.rewritten;
      const FlatGraph from_graph(m.cost().graph()); // the Graph with names, built now
      check_same_arrays(m.flat(), from_graph);
      CHECK(m.op_times() == m.cost().op_time_table());
      CHECK(m.ops().size() == m.rewritten().ops.size());
      // The same placement gives the same plan from either form, and the same evaluation.
      std::vector<DeviceId> device(d.plan.device.begin(), d.plan.device.end());
      const Plan from_names =
          plan_for_placement(from_graph, m.cost().op_time_table(), platform, device, "pareto");
      CHECK(from_names.queues == d.plan.queues);
      ContentionEvaluator flat_eval(cost), named_eval(m.cost());
      flat_eval.rebind(m.flat(), m.op_times());
      CHECK(flat_eval.run(d.plan).makespan == named_eval.run(d.plan).makespan);
      CHECK(flat_eval.peak_memory() == named_eval.peak_memory());
    }
    CHECK(rewritten > 0);
  }
}
