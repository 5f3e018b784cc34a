// Copy lanes (sim/copy_lanes.hpp) and the Chrome trace built on them: no two slices on one lane overlap,
// and interval partitioning uses no more lanes than the most transfers in flight at once.
#include "sim/copy_lanes.hpp"
#include "sim/report.hpp"
#include "sim/simgrid_engine.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <map>

using namespace hs;

namespace {

TransferRun transfer(DeviceId from, DeviceId to, double start, double end) {
  TransferRun t;
  t.from = from;
  t.to = to;
  t.start = start;
  t.end = end;
  return t;
}

// The most intervals of one (from, to) pair open at one instant, by a sweep independent of the lanes.
std::map<std::pair<DeviceId, DeviceId>, int> most_in_flight(const Execution& e) {
  std::map<std::pair<DeviceId, DeviceId>, std::vector<std::pair<double, int>>> events;
  for (const auto& t : e.transfers) {
    events[{t.from, t.to}].push_back({t.start, +1});
    events[{t.from, t.to}].push_back({t.end, -1}); // ends sort before starts at the same instant
  }
  std::map<std::pair<DeviceId, DeviceId>, int> most;
  for (auto& [pair, list] : events) {
    std::sort(list.begin(), list.end());
    int open = 0, best = 0;
    for (const auto& ev : list)
      best = std::max(best, open += ev.second);
    most[pair] = best;
  }
  return most;
}

} // namespace

TEST_CASE("copy lanes: interval partitioning per (source, destination) pair") {
  Execution e;
  // Pair 0->1: [0,2] [1,3] [2,4] [3,5] need two lanes (touching intervals share one); 1->0 has its own.
  e.transfers = {transfer(0, 1, 0, 2), transfer(0, 1, 1, 3),  transfer(0, 1, 2, 4),
                 transfer(0, 1, 3, 5), transfer(1, 0, 0, 10), transfer(0, 1, 0.5, 1.5)};
  const CopyLanes lanes = assign_copy_lanes(e);
  REQUIRE(lanes.lanes.size() == 4); // 0->1: three (at 1, three are in flight), 1->0: one
  const auto lane = [&](std::size_t i) { return lanes.lanes[static_cast<std::size_t>(lanes.lane_of[i])]; };
  CHECK(lane(0).index == 0);
  CHECK(lane(5).index == 1);
  CHECK(lane(1).index == 2);
  CHECK(lane(2).index == 0); // starts when transfer 0 ends
  CHECK(lane(3).index == 1);
  CHECK(lane(4).from == 1);
  CHECK(lane(4).index == 0);
}

TEST_CASE("the trace never overlaps two slices on one lane, even under heavy copy contention") {
  const Platform p = load_platform("multi-gpu-node");
  const Graph g = load_workload("random:ops=240,precision=fp32", 11);
  const CostModel cost(g, p);
  // Ops dealt round-robin over every device and stream, in topological order: most edges cross devices,
  // so copies queue on every engine and share every link.
  Plan plan = Plan::empty(g.op_count(), p, "round-robin");
  int k = 0;
  for (OpId o : g.topological_order()) {
    const auto d = static_cast<std::size_t>(k++ % static_cast<int>(p.devices.size()));
    plan.append(o, static_cast<DeviceId>(d), (k / static_cast<int>(p.devices.size())) % p.devices[d].streams);
  }
  validate_plan(plan, cost);
  const Report r =
      make_report({"multi-gpu-node", g.name, "round-robin", 11}, plan, cost, run_simgrid(plan, cost));
  REQUIRE(r.execution.transfers.size() > 100);

  const CopyLanes lanes = assign_copy_lanes(r.execution);
  const auto most = most_in_flight(r.execution);
  std::map<std::pair<DeviceId, DeviceId>, int> lanes_used;
  for (const auto& l : lanes.lanes)
    ++lanes_used[{l.from, l.to}];
  CHECK(lanes_used == most); // as many lanes as the peak, no more
  CHECK(std::any_of(most.begin(), most.end(), [](const auto& m) { return m.second >= 2; }));

  const auto trace = nlohmann::json::parse(chrome_trace(r));
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> slices; // ns on a lane
  std::size_t complete = 0;
  for (const auto& ev : trace["traceEvents"])
    if (ev["ph"] == "X") {
      ++complete;
      const auto ts = std::llround(ev["ts"].get<double>() * 1e3),
                 dur = std::llround(ev["dur"].get<double>() * 1e3);
      slices[{ev["pid"].get<int>(), ev["tid"].get<int>()}].push_back({ts, ts + dur});
    }
  CHECK(complete == r.execution.ops.size() + r.execution.transfers.size());
  for (auto& entry : slices) {
    auto& list = entry.second;
    std::sort(list.begin(), list.end());
    const int pid = entry.first.first, tid = entry.first.second;
    for (std::size_t i = 1; i < list.size(); ++i) {
      CAPTURE(pid);
      CAPTURE(tid);
      CHECK(list[i - 1].second <= list[i].first);
    }
  }
}
