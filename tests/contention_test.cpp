// Bandwidth sharing on a shared switch uplink: the case the SimGrid replay exists for.
#include "sim/analytic_engine.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace hs;

namespace {
// Producers on a and b each send 32 GB to one consumer on cpu (a 32 GB/s uplink both routes cross).
struct TwoSenders {
  Platform p;
  Graph g;
  Plan plan;
  explicit TwoSenders(Platform platform, bool opposite_directions = false) : p(std::move(platform)) {
    GraphBuilder b("two-senders");
    auto pa = b.op("pa").flops(0), pb = b.op("pb").flops(0), sink = b.op("sink").flops(0);
    auto sink2 = b.op("sink2").flops(0);
    pa.feeds(sink, 32e9);
    if (opposite_directions) {
      auto from_cpu = b.op("from_cpu").flops(0);
      from_cpu.feeds(sink2, 32e9);
    } else {
      pb.feeds(sink2, 32e9);
    }
    g = std::move(b).build();
    plan = Plan::empty(g.op_count(), p, "manual");
    const DeviceId cpu = *p.find_device("cpu"), a = *p.find_device("a"), bb = *p.find_device("b");
    plan.append(0, a);
    plan.append(1, bb);
    if (opposite_directions) plan.append(4, cpu); // sends first, so both transfers overlap
    plan.append(2, cpu);
    plan.append(3, opposite_directions ? a : cpu);
  }
};
} // namespace

TEST_CASE("two transfers through one shared link take twice as long in the replay") {
  TwoSenders t(test::switch_platform());
  const CostModel cost(t.g, t.p);
  const Execution analytic = run_analytic(t.plan, cost);
  const Execution replay = run_simgrid(t.plan, cost);
  REQUIRE(analytic.transfers.size() == 2);
  REQUIRE(replay.transfers.size() == 2);
  for (const auto& tr : analytic.transfers)
    CHECK(tr.end - tr.start == doctest::Approx(1.0));
  for (const auto& tr : replay.transfers)
    CHECK(tr.end - tr.start == doctest::Approx(2.0).epsilon(1e-5));
  CHECK(replay.makespan == doctest::Approx(2.0).epsilon(1e-5));
  // Busy time per link under sharing: the uplink carries both for 2 s; contention-free, 1 s.
  const LinkId uplink = *t.p.find_link("uplink");
  CHECK(busy_seconds_per_link(replay, t.p)[static_cast<std::size_t>(uplink)] ==
        doctest::Approx(2.0).epsilon(1e-5));
  CHECK(busy_seconds_per_link(analytic, t.p)[static_cast<std::size_t>(uplink)] == doctest::Approx(1.0));
  CHECK(bytes_per_link(replay, t.p)[static_cast<std::size_t>(uplink)] == doctest::Approx(64e9));
}

TEST_CASE("split-duplex: opposite directions do not compete, a shared (half-duplex) bus makes them") {
  {
    TwoSenders t(test::switch_platform("split-duplex"), true);
    const CostModel cost(t.g, t.p);
    const Execution replay = run_simgrid(t.plan, cost);
    REQUIRE(replay.transfers.size() == 2);
    for (const auto& tr : replay.transfers)
      CHECK(tr.end - tr.start == doctest::Approx(1.0).epsilon(1e-5));
  }
  {
    TwoSenders t(test::switch_platform("shared"), true);
    const CostModel cost(t.g, t.p);
    const Execution replay = run_simgrid(t.plan, cost);
    REQUIRE(replay.transfers.size() == 2);
    for (const auto& tr : replay.transfers)
      CHECK(tr.end - tr.start == doctest::Approx(2.0).epsilon(1e-5));
  }
}
