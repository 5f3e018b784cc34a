// Kernel shapes and the thread executor: every op of an executable graph maps back to the kernel that
// describes it, bad ops are refused by name, and a real run respects the plan and its dependencies.
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/plan.hpp"
#include "validation/executable_graphs.hpp"
#include "validation/kernel_shapes.hpp"
#include "validation/measurement_set.hpp"
#include "validation/thread_executor.hpp"

#include <doctest/doctest.h>

using namespace hs;
using namespace hs::validation;

TEST_CASE("cost conventions match the workload builders' (known answers)") {
  const KernelShape g = gemm_shape(64, 32, 16);
  CHECK(g.flops() == 2.0 * 64 * 32 * 16);
  CHECK(g.bytes_read() == 4.0 * (64 * 16 + 16 * 32));
  CHECK(g.bytes_written() == 4.0 * 64 * 32);
  const KernelShape c = conv2d_shape(14, 8, 16);
  CHECK(c.flops() == 2.0 * 14 * 14 * 16 * 9 * 8);
  CHECK(c.bytes_read() == 4.0 * (14 * 14 * 8 + 9 * 8 * 16));
  CHECK(vector_shape("elementwise", 100).bytes() == 1200);
  CHECK(copy_shape(4096).bytes() == 8192);
}

TEST_CASE("every op of an executable graph recovers the shape it was made from") {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Graph g = executable_graph({30, seed});
    for (const Op& op : g.ops) {
      const KernelShape s = shape_of_op(op, g.name);
      CHECK(s.kind == op.kind);
      CHECK(s.flops() == doctest::Approx(op.flops));
      CHECK(s.bytes_read() == doctest::Approx(op.bytes_read));
      CHECK(s.bytes_written() == doctest::Approx(op.bytes_written));
    }
  }
  // Both roots of the convolution's quadratic are squares here (196 and 2304): the multiple of 9 decides.
  Op op;
  op.name = "conv";
  describe_op(op, conv2d_shape(14, 256, 256));
  CHECK(shape_of_op(op, "g").label() == "conv2d c=256 hw=14 k=256");
}

TEST_CASE("an op that matches no kernel is refused with the graph and op names") {
  Op op;
  op.name = "odd";
  op.kind = "gemm";
  op.flops = 1e9;
  op.bytes_read = 3;
  op.bytes_written = 4e6;
  CHECK_THROWS_WITH_AS(shape_of_op(op, "my-graph"), doctest::Contains("my-graph: op 'odd'"), InputError);
  op.kind = "attention";
  CHECK_THROWS_WITH_AS(shape_of_op(op, "my-graph"),
                       doctest::Contains("no CPU kernel for op kind 'attention'"), InputError);
  op.kind = "elementwise";
  op.precision = "fp16";
  CHECK_THROWS_AS(shape_of_op(op, "my-graph"), InputError);
}

TEST_CASE("the thread executor runs every op once per run and orders ops as the dependencies require") {
  const Platform p = parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "two",
    "devices": [{"name": "cpu0", "kind": "cpu", "peak": {"fp32": 1e10}, "memory": {"bandwidth": 1e10, "capacity": "1GB"},
                 "power": {"idle": "0W", "busy": "1W"}},
                {"name": "cpu1", "kind": "cpu", "peak": {"fp32": 1e10}, "memory": {"bandwidth": 1e10, "capacity": "1GB"},
                 "power": {"idle": "0W", "busy": "1W"}}],
    "links": [{"name": "m", "bandwidth": "1000TBps", "latency": 0}],
    "routes": [{"from": "cpu0", "to": "cpu1", "links": ["m"]}]})",
                                    "inline");
  GraphBuilder b("chain");
  auto a = b.op("a"), c = b.op("c"), d = b.op("d");
  describe_op(b.mutable_op(a.id()), gemm_shape(64, 64, 64));
  describe_op(b.mutable_op(c.id()), vector_shape("elementwise", 4096));
  describe_op(b.mutable_op(d.id()), rows_shape("softmax", 4, 1024));
  a.feeds(c, 16384);
  a.feeds(d, 16384);
  const Graph g = std::move(b).build();
  Plan plan = Plan::empty(g.op_count(), p, "test");
  plan.append(0, 0);
  plan.append(1, 1);
  plan.append(2, 0);
  const RealExecution r = execute_on_threads(g, plan, 5);
  CHECK(r.makespans.size() == 5);
  CHECK(r.p95 >= r.p50);
  for (double t : r.op_seconds)
    CHECK(t > 0);
  for (double m : r.makespans)
    CHECK(m > 0);

  Plan deadlock = Plan::empty(g.op_count(), p, "test");
  deadlock.append(2, 0);
  deadlock.append(0, 0); // d before its producer a on the same thread
  deadlock.append(1, 1);
  CHECK_THROWS_AS(execute_on_threads(g, deadlock, 1), PlanError);
}

TEST_CASE("percentiles interpolate between closest ranks") {
  std::vector<double> v = {5, 1, 4, 2, 3};
  CHECK(percentile(v, 0.5) == 3);
  CHECK(percentile(v, 0.95) == doctest::Approx(4.8));
  CHECK(percentile(v, 0.0) == 1);
}
