// Collectives as transfer patterns: the SimGrid replay against the textbook costs (Thakur, Rabenseifner and
// Gropp 2005; nccl-tests' PERFORMANCE.md): a ring all-reduce of S bytes over n ranks moves 2(n-1)/n x S
// over each rank's link in 2(n-1) steps, all-gather and reduce-scatter (n-1)/n x S in n-1 steps.
#include "parallel_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/collectives.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <map>
#include <set>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;
namespace c = hs::collectives;

namespace {

const Platform& node() {
  return test::gpu_node();
}

Graph build(c::Collective op, c::Algorithm a, double bytes, int n, int group = 0, int max_ring_steps = 0) {
  GraphBuilder b("coll");
  c::CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  s.devices = gpus(n);
  s.group_size = group;
  s.max_ring_steps = max_ring_steps;
  c::append_collective(b, s, {});
  return std::move(b).build();
}

// Every op on the one device it is pinned to, in topological order.
double replay(const Graph& g) {
  return run_simgrid(pinned_plan(g, node(), false), CostModel(g, node())).makespan;
}

const Route& gpu_route() {
  return *node().route(*node().find_device("gpu0"), *node().find_device("gpu1"));
}

// What one reduce step costs on a GPU: it reads its chunk and the one received and writes the sum.
double reduce_seconds(double chunk) {
  GraphBuilder b("probe");
  b.op("probe").kind("collective").flops(chunk / 4).reads(2 * chunk).writes(chunk);
  const Graph g = std::move(b).build();
  return CostModel(g, node()).op_time(0, *node().find_device("gpu0"));
}

} // namespace

TEST_CASE("a ring all-reduce takes 2(n-1) steps of S/n over each link, and n-1 reduces") {
  const double S = 1 << 30, B = gpu_route().bandwidth, alpha = gpu_route().latency;
  for (int n : {2, 4, 8}) {
    const double chunk = S / n;
    const double expected = 2 * (n - 1) * (chunk / B + alpha) + (n - 1) * reduce_seconds(chunk);
    const double t = replay(build(c::Collective::AllReduce, c::Algorithm::Ring, S, n));
    CAPTURE(n);
    CHECK(t == doctest::Approx(expected).epsilon(0.02));
    // The bandwidth term alone, 2(n-1)/n x S/B, is most of it at 1 GiB.
    CHECK(t > 2.0 * (n - 1) / n * S / B);
  }
}

TEST_CASE(
    "a ring emitted in fewer steps keeps the bytes and the bandwidth term, and pays one latency per step") {
  const double S = 1 << 30, B = gpu_route().bandwidth, alpha = gpu_route().latency;
  const int n = 8; // 7 steps per phase, emitted as 3 (k = 3, 3, 1)
  const Graph exact = build(c::Collective::AllReduce, c::Algorithm::Ring, S, n);
  const Graph fewer = build(c::Collective::AllReduce, c::Algorithm::Ring, S, n, 0, 3);
  CHECK(exact.op_count() == n + 2 * (n - 1) * n);
  CHECK(fewer.op_count() == n + 2 * 3 * n);
  double exact_bytes = 0, fewer_bytes = 0;
  for (const auto& t : exact.tensors)
    exact_bytes += t.bytes;
  for (const auto& t : fewer.tensors)
    fewer_bytes += t.bytes;
  CHECK(fewer_bytes == doctest::Approx(exact_bytes).epsilon(1e-12));
  const double chunk = S / n;
  // Reduce steps cost the bytes they touch (no launch), which add up whatever the grouping.
  const double expected = 2 * 3 * alpha + 2 * (n - 1) * chunk / B + (n - 1) * reduce_seconds(chunk);
  CHECK(replay(fewer) == doctest::Approx(expected).epsilon(0.02));
  CHECK(replay(fewer) < replay(exact)); // by the 2 x 4 latencies it does not pay
  CHECK_THROWS_WITH_AS(build(c::Collective::AllReduce, c::Algorithm::Ring, S, n, 0, -1),
                       doctest::Contains("max_ring_steps"), std::invalid_argument);
}

TEST_CASE("ring all-gather and reduce-scatter take (n-1)/n x S/B plus their latency and reduce terms") {
  const double S = 256.0 * (1 << 20), B = gpu_route().bandwidth, alpha = gpu_route().latency;
  const int n = 8;
  const double chunk = S / n;
  CHECK(replay(build(c::Collective::AllGather, c::Algorithm::Ring, S, n)) ==
        doctest::Approx((n - 1) * (chunk / B + alpha)).epsilon(0.02));
  CHECK(replay(build(c::Collective::ReduceScatter, c::Algorithm::Ring, S, n)) ==
        doctest::Approx((n - 1) * (chunk / B + alpha + reduce_seconds(chunk))).epsilon(0.02));
}

TEST_CASE("a direct all-to-all shares each rank's link among its n-1 messages where engines allow") {
  const double S = 512.0 * (1 << 20), B = gpu_route().bandwidth, alpha = gpu_route().latency;
  const int n = 8;
  const double link_bound = (n - 1.0) / n * S / B + alpha;
  const Graph g = build(c::Collective::AllToAll, c::Algorithm::Direct, S, n);
  // With an engine per message at both ends, the seven messages of each rank share its link.
  Platform engines = node();
  for (auto& d : engines.devices)
    d.copy_engines = 16;
  const double shared = run_simgrid(pinned_plan(g, engines, false), CostModel(g, engines)).makespan;
  CHECK(shared / link_bound == doctest::Approx(1.0).epsilon(0.02));
  // With the preset's two engines per A100 a message holds one at each end for its whole length, so the
  // messages queue (1.86x the link bound here). NCCL moves an all-to-all with SMs, not copy engines: a gap
  // of the model, kept visible here rather than hidden by the tolerance.
  CHECK(replay(g) / link_bound == doctest::Approx(1.86).epsilon(0.02));
}

TEST_CASE("a tree all-reduce over three ranks: both children share the root's link up and down") {
  const double S = 128.0 * (1 << 20), B = gpu_route().bandwidth, alpha = gpu_route().latency;
  // Up: two buffers into the root at once (2S/B), one reduce per child; down: two buffers out at once.
  const double expected = 2 * (2 * S / B + alpha) + 2 * reduce_seconds(S);
  CHECK(replay(build(c::Collective::AllReduce, c::Algorithm::Tree, S, 3)) ==
        doctest::Approx(expected).epsilon(0.02));
}

TEST_CASE(
    "a hierarchical all-reduce is a local ring, a ring per rail across groups, and a local ring again") {
  const double S = 512.0 * (1 << 20), B = gpu_route().bandwidth, alpha = gpu_route().latency;
  const int g = 4, groups = 2;
  const double local = S / g, rail = S / g / groups;
  const double expected = (g - 1) * (2 * (local / B + alpha) + reduce_seconds(local)) +
                          (groups - 1) * (2 * (rail / B + alpha) + reduce_seconds(rail));
  CHECK(replay(build(c::Collective::AllReduce, c::Algorithm::Hierarchical, S, g * groups, g)) ==
        doctest::Approx(expected).epsilon(0.02));
}

TEST_CASE("every step of a collective is pinned to its rank, and the evaluator agrees with the replay") {
  const Graph g = build(c::Collective::AllReduce, c::Algorithm::Ring, 64e6, 4);
  std::set<std::string> devices;
  for (const auto& op : g.ops) {
    REQUIRE(op.allowed_devices.size() == 1);
    devices.insert(op.allowed_devices[0]);
    CHECK(op.kind == "collective");
  }
  CHECK(devices == std::set<std::string>{"gpu0", "gpu1", "gpu2", "gpu3"});
  // 4 start ops, then 3 reduce-scatter and 3 all-gather steps on each rank.
  CHECK(g.op_count() == 4 * (1 + 3 + 3));
  const CostModel cost(g, node());
  CHECK_FALSE(cost.feasible(0, *node().find_device("gpu1"))); // r0's start runs on gpu0 only
}

TEST_CASE("the collective workload builder refuses specs that cannot run, naming the parameter") {
  CHECK_THROWS_WITH(load_workload("collective:devices=gpu0"), doctest::Contains("at least 2 ranks"));
  CHECK_THROWS_WITH(load_workload("collective:op=all-gather,algo=tree"), doctest::Contains("has no tree"));
  CHECK_THROWS_WITH(load_workload("collective:algo=hierarchical,group=3"), doctest::Contains("divides"));
  CHECK_THROWS_WITH(load_workload("collective:bytes=-5MiB"), doctest::Contains("bytes"));
  CHECK_THROWS_WITH(load_workload("collective:devices=gpu0,gpu0"), doctest::Contains("listed twice"));
  CHECK(load_workload("collective:bytes=1MiB,devices=a,b,c").op_count() == 3 * (1 + 2 + 2));
}

TEST_CASE("nccl-tests' bus bandwidth factors") {
  CHECK(c::bus_bandwidth_factor(c::Collective::AllReduce, 8) == doctest::Approx(1.75));
  CHECK(c::bus_bandwidth_factor(c::Collective::AllGather, 8) == doctest::Approx(0.875));
  CHECK(c::bus_bandwidth_factor(c::Collective::ReduceScatter, 4) == doctest::Approx(0.75));
  CHECK(c::bus_bandwidth_factor(c::Collective::Broadcast, 8) == doctest::Approx(1.0));
}

TEST_CASE("a pipelined chain broadcast beats sending the whole buffer hop by hop") {
  const double S = 256.0 * (1 << 20), B = gpu_route().bandwidth;
  const int n = 8;
  const double t = replay(build(c::Collective::Broadcast, c::Algorithm::Ring, S, n));
  // n slices: (n + n - 2) slice times of S/n each, against (n-1) S/B unpipelined; never below S/B.
  CHECK(t > S / B);
  CHECK(t < 0.5 * (n - 1) * S / B);
  CHECK(t == doctest::Approx((2 * n - 2) * (S / n / B)).epsilon(0.05));
}

TEST_CASE("a cluster platform is N renamed copies of its node on rails, and a rail all-reduce crosses NICs") {
  const Platform c = load_platform("dgx-a100-cluster:nodes=2");
  CHECK(c.device_count() == 2 * node().device_count());
  const DeviceId a = *c.find_device("n0.gpu3"), b = *c.find_device("n1.gpu3"), d = *c.find_device("n1.gpu5");
  const Route& same_rail = *c.route(a, b);
  REQUIRE(same_rail.hops.size() == 2); // NIC up to rail3, NIC down
  CHECK(c.links[static_cast<std::size_t>(same_rail.hops[0].link)].name == "n0.nic_gpu3");
  CHECK(c.route(a, d)->hops.size() == 4); // across rails: through the spine
  CHECK(c.route(*c.find_device("n0.cpu1"), *c.find_device("n1.cpu0")) != nullptr); // hosts meet via host NICs
  // Two nodes, one rank each on rail 3: a 2-rank ring is one exchange each way of S/2 over the NIC.
  GraphBuilder g("rail");
  c::CollectiveSpec s;
  s.bytes = 64.0 * (1 << 20);
  s.devices = {"n0.gpu3", "n1.gpu3"};
  c::append_collective(g, s, {});
  const Graph graph = std::move(g).build();
  const CostModel cost(graph, c);
  const Plan plan = pinned_plan(graph, c, false);
  GraphBuilder probe("probe");
  probe.op("probe").kind("collective").flops(s.bytes / 2 / 4).reads(s.bytes).writes(s.bytes / 2);
  const Graph pg = std::move(probe).build();
  const double reduce = CostModel(pg, c).op_time(0, a);
  CHECK(run_simgrid(plan, cost).makespan ==
        doctest::Approx(2 * (s.bytes / 2 / same_rail.bandwidth + same_rail.latency) + reduce).epsilon(0.02));
}

TEST_CASE("a cluster's devices are costed by its node's calibration") {
  const Platform c = load_platform("dgx-a100-cluster:nodes=2");
  REQUIRE(c.calibration);
  REQUIRE(node().calibration);
  CHECK(c.calibration->file == node().calibration->file);
  const auto& entry = c.calibration->entries.at(0);
  const auto devices = c.calibration->calibrated_devices(entry, c);
  CHECK(devices.size() == 16); // every GPU of both nodes, no CPU
  CHECK(std::find(devices.begin(), devices.end(), "n1.gpu7") != devices.end());
}

TEST_CASE("a cluster file's parameters and node are checked, naming the place") {
  CHECK_THROWS_WITH(load_platform("dgx-a100-cluster:nodes=0"),
                    doctest::Contains("nodes: '0' is not a node count"));
  CHECK_THROWS_WITH(load_platform("dgx-a100-cluster:racks=2"), doctest::Contains("racks: unknown parameter"));
  CHECK_THROWS_WITH(load_platform("multi-gpu-node:nodes=2"), doctest::Contains("only a cluster platform"));
}

TEST_CASE("a collective's ranks are distinct devices") {
  CHECK_THROWS_WITH(build(c::Collective::AllReduce, c::Algorithm::Ring, 1e6, 1),
                    doctest::Contains("at least 2"));
  GraphBuilder b("twice");
  c::CollectiveSpec s;
  s.bytes = 1e6;
  s.devices = {"gpu0", "gpu1", "gpu0"};
  CHECK_THROWS_WITH(c::append_collective(b, s, {}), doctest::Contains("'gpu0' holds two ranks"));
}

TEST_CASE("NCCL's channels: the same bandwidth term on one link, and disjoint NICs across nodes") {
  // Two ranks on one NVSwitch link each: C rings of S/C move the same bytes over the same links.
  const double bytes = 256.0 * (1 << 20);
  const Route& r = gpu_route();
  for (int channels : {1, 2, 4}) {
    GraphBuilder b("channels");
    c::CollectiveSpec s;
    s.bytes = bytes;
    s.devices = gpus(2);
    s.channels = channels;
    c::append_collective(b, s, {});
    const double t = replay(std::move(b).build());
    CAPTURE(channels);
    // One channel: the two steps of S/2 and a reduce of S/2. More: the same bytes over the link, and the
    // channels' reduces (on streams of their own) overlap each other and the other channels' transfers.
    // As ratios: Approx's tolerance is absolute near zero, and these are milliseconds.
    const double one_channel = bytes / r.bandwidth + reduce_seconds(bytes / 2);
    if (channels == 1) CHECK(t / one_channel == doctest::Approx(1.0).epsilon(0.02));
    CHECK(t >= bytes / r.bandwidth);
    CHECK(t <= one_channel * 1.02);
  }
  // 16 ranks on 2 nodes of a rail-optimised cluster, 8 per node: each of the 8 channels crosses each node
  // boundary on a NIC of its own.
  const Platform cluster = load_platform("dgx-a100-cluster:nodes=2");
  std::vector<std::string> ranks;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 8; ++i)
      ranks.push_back(std::string("n").append(std::to_string(k)).append(".gpu").append(std::to_string(i)));
  const auto build_on = [&](int channels) {
    GraphBuilder b("channels");
    c::CollectiveSpec s;
    s.bytes = 1 << 30;
    s.devices = ranks;
    s.group_size = 8;
    s.channels = channels;
    c::append_collective(b, s, {});
    return std::move(b).build();
  };
  const Graph g = build_on(8);
  std::map<int, std::set<std::string>> nics; // channel -> the link directions its cross-node transfers use
  for (const auto& t : g.tensors) {
    const Op& from = g.op(t.producer);
    for (OpId to : t.consumers) {
      const std::string& a = from.allowed_devices.at(0);
      const std::string& d = g.op(to).allowed_devices.at(0);
      if (a.substr(0, 3) == d.substr(0, 3)) continue; // same node
      const Route* route = cluster.route(*cluster.find_device(a), *cluster.find_device(d));
      REQUIRE(route != nullptr);
      CHECK(route->hops.size() == 2); // one rail: the NIC up and the NIC down, no spine
      const int channel = std::stoi(from.name.substr(from.name.find(".ch") + 3));
      for (const auto& hop : route->hops)
        nics[channel].insert(cluster.links[static_cast<std::size_t>(hop.link)].name +
                             (hop.forward ? "+" : "-"));
    }
  }
  REQUIRE(nics.size() == 8);
  std::set<std::string> all;
  std::size_t used = 0;
  for (const auto& [channel, links] : nics) {
    used += links.size();
    all.insert(links.begin(), links.end());
  }
  CHECK(all.size() == used); // no direction of a NIC link on two channels' routes
  CHECK(used == 8 * 2 * 2);  // per channel: 2 boundaries (there and back), a NIC up and one down each
  // And they run side by side: 8 channels finish well before one ring through one NIC per boundary.
  const auto timed = [&](const Graph& x) {
    return run_simgrid(pinned_plan(x, cluster, false), CostModel(x, cluster)).makespan;
  };
  const double one = timed(build_on(1)), eight = timed(g);
  MESSAGE("1 GiB all-reduce over 16 GPUs on 2 nodes: 1 channel " << one * 1e3 << " ms, 8 channels "
                                                                 << eight * 1e3 << " ms");
  CHECK(eight < one / 3);
  GraphBuilder b("refused");
  c::CollectiveSpec s;
  s.bytes = 1e6;
  s.devices = gpus(4);
  s.channels = 0;
  CHECK_THROWS_WITH(c::append_collective(b, s, {}), doctest::Contains("at least 1 channel"));
  s.channels = 2;
  s.algorithm = c::Algorithm::Tree;
  CHECK_THROWS_WITH(c::append_collective(b, s, {}), doctest::Contains("channels split ring"));
  s.algorithm = c::Algorithm::Ring;
  s.group_size = 3;
  CHECK_THROWS_WITH(c::append_collective(b, s, {}), doctest::Contains("groups of 3"));
}
