// The contention-aware data-ready time list schedulers use (policies/input_arrival.hpp): transfers that
// share a link are serialised, a trial leaves nothing booked, and a trial that stops early once the device
// cannot win returns a lower bound without disturbing what comes after it.
#include "policies/input_arrival.hpp"
#include "sim/graph_builder.hpp"

#include <doctest/doctest.h>
#include <tuple>

using namespace hs;

namespace {

// Two devices joined by one 10 GB/s link, one copy engine each way, so transfers between them queue.
Platform two_devices() {
  const auto dev = [](const std::string& name) {
    return R"({"name": ")" + name + R"(", "kind": "gpu", "peak": {"fp32": "10Tf"},
      "memory": {"bandwidth": "1TBps", "capacity": "16GB"}, "power": {"idle": "10W", "busy": "110W"},
      "copy_engines": 1})";
  };
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "two",
    "devices": [)" + dev("d0") +
                            "," + dev("d1") +
                            R"(],
    "links": [{"name": "l01", "bandwidth": "10GBps", "latency": 0}],
    "routes": [{"from": "d0", "to": "d1", "links": ["l01"]}]})",
                        "two");
}

// Four producers on d0, all done at time 0, each sending 100 MB (10 ms on the link) to one consumer.
Graph four_inputs() {
  GraphBuilder b("four-inputs");
  auto c = b.op("c").kind("gemm").flops(1e9);
  for (int k = 0; k < 4; ++k)
    b.op(std::string("p").append(std::to_string(k))) // .append: GCC 12 -Wrestrict misfires on +
        .kind("gemm")
        .flops(1e9)
        .feeds(c, 1e8);
  return std::move(b).build();
}

// The graph on the platform, every producer placed on d0 and done at time 0.
struct FourInputs {
  Graph g = four_inputs();
  Platform p = two_devices();
  CostModel cost{g, p};
  OpId consumer = *g.find_op("c");
  std::vector<DeviceId> placed = std::vector<DeviceId>(static_cast<std::size_t>(g.op_count()), 0);
  std::vector<double> finish = std::vector<double>(placed.size(), 0.0);
};

} // namespace

TEST_CASE("input arrival: transfers over one link queue, and a trial books nothing") {
  const FourInputs f;
  const auto& [placed, finish] = std::tie(f.placed, f.finish);
  InputArrival inputs(f.cost, true);
  const double ready = inputs.ready_time(f.consumer, 1, placed, finish);
  CHECK(ready == doctest::Approx(0.04)); // four 10 ms transfers, one after another
  CHECK(inputs.ready_time(f.consumer, 1, placed, finish) == ready);
  CHECK(inputs.ready_lower_bound(f.consumer, 1, placed, finish) == doctest::Approx(0.01));
}

TEST_CASE("input arrival: a hopeless trial stops early with a lower bound and leaves no trace") {
  const FourInputs f;
  const auto& [placed, finish] = std::tie(f.placed, f.finish);
  InputArrival fresh(f.cost, true);
  const double full = fresh.ready_time(f.consumer, 1, placed, finish);

  InputArrival inputs(f.cost, true);
  int asked = 0;
  const double early = inputs.ready_time(f.consumer, 1, placed, finish, [&](double t) {
    ++asked;
    return t >= 0.015;
  });
  // Stopped after the second transfer (20 ms): at least the threshold, at most the real ready time.
  CHECK(early == doctest::Approx(0.02));
  CHECK(early <= full);
  CHECK(asked == 3); // before any booking, and after the first and the second transfer
  // Nothing of the abandoned trial stays booked, and a commit books the whole trial as a fresh one would.
  CHECK(inputs.ready_time(f.consumer, 1, placed, finish) == full);
  CHECK(inputs.commit(f.consumer, 1, placed, finish) == full);
  CHECK(fresh.commit(f.consumer, 1, placed, finish) == full);
  // A hope that never fails changes nothing.
  InputArrival hopeful(f.cost, true);
  CHECK(hopeful.ready_time(f.consumer, 1, placed, finish, [](double) { return false; }) == full);
}
