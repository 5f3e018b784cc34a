// Rewrites keep the graph's work within their documented overheads (policies/pareto/rewrite.hpp), and
// the coarse partition covers every op once with devices that can run it.
#include "policies/pareto/coarsen.hpp"
#include "policies/pareto/encoding.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <numeric>

using namespace hs;
using namespace hs::pareto;

namespace {

// conv -> bn -> relu -> gemm(big) -> bias -> gelu, plus a side branch so not everything chains.
Graph fusable_graph() {
  GraphBuilder b("fusable");
  auto in = b.op("in").kind("elementwise").flops(1e6).reads(4e6).writes(4e6);
  auto conv = b.op("conv").kind("conv2d").flops(4e9).reads(8e6).writes(16e6).params(2e6);
  auto bn = b.op("bn").kind("batchnorm").flops(2e7).reads(16e6).writes(16e6).params(1e4);
  auto relu = b.op("relu").kind("relu").flops(4e6).reads(16e6).writes(16e6);
  auto gemm = b.op("gemm").kind("gemm").flops(64e9).reads(16e6 + 32e6).writes(8e6).params(32e6);
  auto bias = b.op("bias").kind("bias").flops(2e6).reads(8e6).writes(8e6);
  auto gelu = b.op("gelu").kind("gelu").flops(1.6e7).reads(8e6).writes(8e6);
  auto side = b.op("side").kind("softmax").flops(1e6).reads(4e6).writes(4e6);
  in.feeds(conv, 4e6);
  in.feeds(side, 4e6, "in->side");
  conv.feeds(bn, 16e6);
  bn.feeds(relu, 16e6);
  relu.feeds(gemm, 16e6);
  gemm.feeds(bias, 8e6);
  bias.feeds(gelu, 8e6);
  side.feeds(gelu, 4e6);
  return std::move(b).build();
}

Platform two_gpus() {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "two",
    "devices": [)" + test::device_json("g0", "gpu", "10Tf") +
                            "," + test::device_json("g1", "gpu", "10Tf") + R"(],
    "links": [{"name": "l", "bandwidth": "32GBps", "latency": "1us"}],
    "routes": [{"from": "g0", "to": "g1", "links": ["l"]}]})",
                        "two");
}

double total(const Graph& g, double Op::*field) {
  double s = 0;
  for (const auto& o : g.ops)
    s += o.*field;
  return s;
}

} // namespace

TEST_CASE("fusion candidates are conv+bn+relu and gemm+bias+gelu chains") {
  const Graph g = fusable_graph();
  const Platform p = two_gpus();
  const CostModel cost(g, p);
  const auto c = find_rewrite_candidates(cost);
  REQUIRE(c.fusions.size() == 2);
  CHECK(c.fusions[0].chain == std::vector<OpId>{*g.find_op("conv"), *g.find_op("bn"), *g.find_op("relu")});
  // gelu also reads `side`, which is fine: only the intermediates must have one producer and one reader.
  CHECK(c.fusions[1].chain == std::vector<OpId>{*g.find_op("gemm"), *g.find_op("bias"), *g.find_op("gelu")});
  REQUIRE(c.splits.size() == 1);
  CHECK(c.splits[0].op == *g.find_op("gemm"));
}

TEST_CASE("fusion keeps FLOPs and removes exactly the intermediates' traffic") {
  const Graph g = fusable_graph();
  const Platform p = two_gpus();
  const CostModel cost(g, p);
  const auto c = find_rewrite_candidates(cost);
  RewriteDecision d;
  d.fuse = {true, true};
  d.split = {false};
  const Rewritten r = apply_rewrites(g, c, d);
  CHECK(r.graph.op_count() == g.op_count() - 4);
  CHECK(total(r.graph, &Op::flops) == doctest::Approx(total(g, &Op::flops)));
  CHECK(total(r.graph, &Op::param_bytes) == doctest::Approx(total(g, &Op::param_bytes)));
  // Intermediates conv->bn, bn->relu (16 MB each), gemm->bias, bias->gelu (8 MB each), each written and read
  // once.
  const double intermediates = 2 * 16e6 + 2 * 8e6;
  const double moved_before = total(g, &Op::bytes_read) + total(g, &Op::bytes_written);
  const double moved_after = total(r.graph, &Op::bytes_read) + total(r.graph, &Op::bytes_written);
  CHECK(moved_before - moved_after == doctest::Approx(2 * intermediates));
  // Every original op is represented exactly once.
  std::vector<int> seen(static_cast<std::size_t>(g.op_count()), 0);
  for (const auto& op : r.ops)
    for (OpId x : op.origin)
      ++seen[static_cast<std::size_t>(x)];
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  // The fused op is faster than its parts run one after another (one launch, less traffic).
  const CostModel after(r.graph, p);
  const OpId fused = *r.graph.find_op("conv+bn+relu");
  const double parts = cost.op_time(*g.find_op("conv"), 0) + cost.op_time(*g.find_op("bn"), 0) +
                       cost.op_time(*g.find_op("relu"), 0);
  CHECK(after.op_time(fused, 0) < parts);
}

TEST_CASE("a row split keeps FLOPs and adds only the documented overheads") {
  const Graph g = fusable_graph();
  const Platform p = two_gpus();
  const CostModel cost(g, p);
  const auto c = find_rewrite_candidates(cost);
  RewriteDecision d;
  d.fuse = {false, false};
  d.split = {true};
  const Rewritten r = apply_rewrites(g, c, d);
  CHECK(r.graph.op_count() == g.op_count() + 2); // two halves and a join replace the GEMM
  CHECK(total(r.graph, &Op::flops) == doctest::Approx(total(g, &Op::flops)));
  const Op& gemm = g.op(*g.find_op("gemm"));
  const double moved_before = total(g, &Op::bytes_read) + total(g, &Op::bytes_written);
  const double moved_after = total(r.graph, &Op::bytes_read) + total(r.graph, &Op::bytes_written);
  // + the weight read by both halves, + the join reading and writing the output.
  CHECK(moved_after - moved_before == doctest::Approx(gemm.param_bytes + 2 * gemm.bytes_written));
  CHECK(total(r.graph, &Op::param_bytes) - total(g, &Op::param_bytes) == doctest::Approx(gemm.param_bytes));
  // Consumers of the GEMM's output now read it from the join.
  const OpId join = *r.graph.find_op("gemm#join");
  CHECK(r.graph.successors(join) == std::vector<OpId>{*r.graph.find_op("bias")});
  // An active fusion wins over a split of the same op.
  d.fuse = {false, true};
  const Rewritten both = apply_rewrites(g, c, d);
  CHECK_FALSE(both.graph.find_op("gemm#join").has_value());
}

TEST_CASE("decoding a split genome places the halves on two devices and validates") {
  const Graph g = fusable_graph();
  const Platform p = two_gpus();
  const CostModel cost(g, p);
  const Encoding enc(cost, {});
  Genome genome = enc.all_on(0);
  genome[enc.split_gene(0)] = 2; // second target: g1
  const Decoded dec = enc.decode(genome);
  REQUIRE(dec.rewritten);
  const Graph& rg = dec.cost().graph();
  CHECK(dec.plan.device[static_cast<std::size_t>(*rg.find_op("gemm#0"))] == 0);
  CHECK(dec.plan.device[static_cast<std::size_t>(*rg.find_op("gemm#1"))] == 1);
  CHECK_NOTHROW(validate_plan(dec.plan, dec.cost()));
}

TEST_CASE("the coarse partition covers every op once, on devices that can run all of it") {
  const Graph g = load_workload("random:ops=80,precision=fp16", 3);
  const Platform p = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  const CostModel cost(g, p);
  const auto c = find_rewrite_candidates(cost);
  const Coarsening co = coarsen(cost, c);
  std::vector<int> seen(static_cast<std::size_t>(g.op_count()), 0);
  for (std::size_t s = 0; s < co.nodes.size(); ++s) {
    CHECK_FALSE(co.nodes[s].devices.empty());
    CHECK(co.nodes[s].ops.size() <= 16);
    for (OpId x : co.nodes[s].ops) {
      ++seen[static_cast<std::size_t>(x)];
      CHECK(co.node_of[static_cast<std::size_t>(x)] == static_cast<int>(s));
      for (DeviceId d : co.nodes[s].devices)
        CHECK(cost.feasible(x, d));
    }
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  for (const auto& f : c.fusions) // a fusable chain stays in one super-node
    for (OpId x : f.chain)
      CHECK(co.node_of[static_cast<std::size_t>(x)] == co.node_of[static_cast<std::size_t>(f.chain.front())]);
}
