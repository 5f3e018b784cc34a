// A ring over many identical ranks folded onto a few (collectives::CollectiveSpec::ring_ranks, `--parallel
// dp=D,replicas=R`): where the ranks left out would do what the simulated ones do, on links of their own,
// the folded ring takes the whole ring's time, so a step over D replicas can be simulated on R of them.
#include "parallel_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/collectives.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>

using namespace hs;
namespace c = hs::collectives;

namespace {

Graph collective(const c::CollectiveSpec& s) {
  GraphBuilder b(s.name);
  c::append_collective(b, s, {});
  return std::move(b).build();
}

// Every op on its pinned device; `streams`: collectives on a stream of their own, as as-pinned plans them.
double replay(const Graph& g, const Platform& p, bool streams = false) {
  return run_simgrid(test::pinned_plan(g, p, streams), CostModel(g, p)).makespan;
}

c::CollectiveSpec spec(c::Collective op, c::Algorithm a, std::vector<std::string> devices, int ring_ranks = 0,
                       int group = 0) {
  c::CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = 1 << 30;
  s.devices = std::move(devices);
  s.ring_ranks = ring_ranks;
  s.group_size = group;
  return s;
}

double bytes_sent_by(const Graph& g, const std::string& device) {
  double sent = 0;
  for (const auto& t : g.tensors)
    if (g.op(t.producer).allowed_devices.front() == device) sent += t.bytes;
  return sent;
}

std::string gpu_of_node(int node, int gpu) { // append: GCC 12's -Wrestrict misfires on +
  return std::string("n").append(std::to_string(node)).append(".gpu").append(std::to_string(gpu));
}

std::vector<std::string> rail(int nodes, int gpu) {
  std::vector<std::string> d;
  for (int k = 0; k < nodes; ++k)
    d.push_back(gpu_of_node(k, gpu));
  return d;
}

} // namespace

TEST_CASE("a ring of 8 ranks folded onto 2 takes the 8-rank ring's time and sends its bytes") {
  const Platform& node = test::gpu_node(); // every GPU on its own NVSwitch link
  const Route& r = *node.route(*node.find_device("gpu0"), *node.find_device("gpu1"));
  for (c::Collective op :
       {c::Collective::AllReduce, c::Collective::AllGather, c::Collective::ReduceScatter}) {
    CAPTURE(c::collective_name(op));
    const Graph whole = collective(spec(op, c::Algorithm::Ring, test::gpus(8)));
    const Graph folded = collective(spec(op, c::Algorithm::Ring, test::gpus(2), 8));
    CHECK(replay(folded, node) == doctest::Approx(replay(whole, node)).epsilon(0.01));
    const double phases = op == c::Collective::AllReduce ? 2 : 1;
    CHECK(bytes_sent_by(folded, "gpu0") == doctest::Approx(phases * 7.0 / 8 * (1 << 30)));
    CHECK(bytes_sent_by(folded, "gpu0") == doctest::Approx(bytes_sent_by(whole, "gpu0")));
    CHECK(replay(folded, node) > phases * 7 * ((1 << 30) / 8.0 / r.bandwidth + r.latency));
  }
  // Two ranks fold nothing: the same graph as without.
  CHECK(collective(spec(c::Collective::AllReduce, c::Algorithm::Ring, test::gpus(2), 2)).op_count() ==
        collective(spec(c::Collective::AllReduce, c::Algorithm::Ring, test::gpus(2))).op_count());
}

TEST_CASE("folded across nodes: a rail ring over 8 nodes on 2, and a hierarchical all-reduce over 4 on 2") {
  const Platform cluster = load_platform("dgx-a100-cluster:nodes=8");
  const Graph whole = collective(spec(c::Collective::AllReduce, c::Algorithm::Ring, rail(8, 3)));
  const Graph folded = collective(spec(c::Collective::AllReduce, c::Algorithm::Ring, rail(2, 3), 8));
  CHECK(replay(folded, cluster) == doctest::Approx(replay(whole, cluster)).epsilon(0.01));
  std::vector<std::string> four_nodes; // node by node, as hierarchical groups are
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 8; ++i)
      four_nodes.push_back(gpu_of_node(k, i));
  const std::vector<std::string> two_nodes(four_nodes.begin(), four_nodes.begin() + 16);
  const auto h = c::Algorithm::Hierarchical;
  const double t4 = replay(collective(spec(c::Collective::AllReduce, h, four_nodes, 0, 8)), cluster);
  const double t2 = replay(collective(spec(c::Collective::AllReduce, h, two_nodes, 32, 8)), cluster);
  CHECK(t2 == doctest::Approx(t4).epsilon(0.01));
  // Not a fold: the two-node hierarchical all-reduce alone is faster, its rail rings being shorter.
  CHECK(replay(collective(spec(c::Collective::AllReduce, h, two_nodes, 0, 8)), cluster) < 0.9 * t4);
}

TEST_CASE("a step over 8 replicas simulated on 2 of them takes the 8-replica step's time") {
  const Graph step = load_workload("gpt2-small:mode=training,precision=fp16,heads=fused,batch=2,seq=128");
  const Platform& node = test::gpu_node();
  DataParallelOptions all;
  all.devices = test::gpus(8);
  DataParallelOptions two = all;
  two.devices = test::gpus(2);
  two.represented_replicas = 8;
  const Graph whole = data_parallel(step, all), folded = data_parallel(step, two);
  CHECK(folded.op_count() < whole.op_count() / 3);
  const double t8 = replay(whole, node, true), t2 = replay(folded, node, true);
  CHECK(t2 == doctest::Approx(t8).epsilon(0.01));
  // Against 2 replicas that stand for themselves, whose all-reduces move 1/2 of the buffer, not 7/8.
  DataParallelOptions just_two = two;
  just_two.represented_replicas = 0;
  CHECK(bytes_sent_by(folded, "gpu0") > bytes_sent_by(data_parallel(step, just_two), "gpu0"));
}

TEST_CASE("a fold is refused where it cannot stand for the whole ring") {
  CHECK_THROWS_WITH(collective(spec(c::Collective::AllReduce, c::Algorithm::Ring, test::gpus(4), 3)),
                    doctest::Contains("stands for at least as many"));
  CHECK_THROWS_WITH(collective(spec(c::Collective::AllReduce, c::Algorithm::Tree, test::gpus(2), 8)),
                    doctest::Contains("a folded ring is a ring"));
  CHECK_THROWS_WITH(collective(spec(c::Collective::Broadcast, c::Algorithm::Ring, test::gpus(2), 8)),
                    doctest::Contains("a folded ring is a ring"));
  CHECK_THROWS_WITH(
      collective(spec(c::Collective::AllReduce, c::Algorithm::Hierarchical, test::gpus(4), 7, 2)),
      doctest::Contains("needs groups of 2 to divide them"));
  const Graph step = load_workload("gpt2-small:mode=training,seq=16");
  DataParallelOptions o;
  o.devices = test::gpus(2);
  o.represented_replicas = 8;
  o.zero_stage = 1;
  CHECK_THROWS_WITH(data_parallel(step, o), doctest::Contains("no ZeRO and one channel"));
}
