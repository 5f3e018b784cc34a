// Scheduling-research DAGs: the Topcuoglu et al. 2002 random generator in explicit-cost form, and DOT
// import in SimGrid's convention.
#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "workloads/dot_import.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/workload_registry.hpp"

#include <cmath>
#include <doctest/doctest.h>

using hs::Graph;

TEST_CASE("Topcuoglu random DAGs: size, determinism by seed, named processors") {
  const Graph a = hs::load_workload("topcuoglu:v=60,seed=4");
  CHECK(a.op_count() == 60);
  CHECK(hs::graph_to_json(a).dump() == hs::graph_to_json(hs::load_workload("topcuoglu:v=60,seed=4")).dump());
  CHECK(hs::graph_to_json(a).dump() != hs::graph_to_json(hs::load_workload("topcuoglu:v=60,seed=5")).dump());
  // The run seed is the default seed.
  CHECK(hs::graph_to_json(hs::load_workload("topcuoglu:v=60", 4)).dump() == hs::graph_to_json(a).dump());
  for (const auto& op : a.ops)
    CHECK(op.times.size() == 3);
  const Graph named = hs::load_workload("topcuoglu:v=10,devices=cpu,gpu");
  CHECK(named.ops.front().times.count("gpu") == 1);
  CHECK(named.ops.front().times.size() == 2);
  // Every task but those of the first level has a parent.
  int roots = 0;
  for (hs::OpId i = 0; i < a.op_count(); ++i)
    roots += a.predecessors(i).empty();
  CHECK(roots < 60 / 2);
}

TEST_CASE("Topcuoglu random DAGs: CCR, beta and alpha mean what the paper says") {
  // Over many tasks the sample means approach the parameters: mean edge cost / mean computation cost ~ CCR,
  // per-task spread across processors within w_i (1 +- beta/2), and alpha makes the graph wide or tall.
  const Graph g = hs::load_workload("topcuoglu:v=3000,ccr=5,beta=0.4,wdag=20,seed=1");
  double comp = 0, comm = 0;
  for (const auto& op : g.ops) {
    double lo = 1e300, hi = 0, mean = 0;
    for (const auto& [d, t] : op.times) {
      lo = std::min(lo, t);
      hi = std::max(hi, t);
      mean += t / 3;
    }
    comp += mean;
    CHECK(hi <= lo * (1 + 0.2) / (1 - 0.2) + 1e-9);
  }
  for (const auto& t : g.tensors)
    comm += *t.comm_time;
  comp /= g.op_count();
  comm /= g.tensor_count();
  CHECK(comp == doctest::Approx(20).epsilon(0.05));
  CHECK(comm / comp == doctest::Approx(5).epsilon(0.08));
  const auto tall = hs::summarize(hs::load_workload("topcuoglu:v=400,alpha=0.5,seed=2"));
  const auto wide = hs::summarize(hs::load_workload("topcuoglu:v=400,alpha=2,seed=2"));
  CHECK(tall.depth > 2 * wide.depth);
}

TEST_CASE("Topcuoglu 2002 example: critical path at mean costs is the paper's rank_u(n1) = 108") {
  const auto s =
      hs::summarize(hs::load_graph(std::string(HS_SOURCE_DIR) + "/workloads/examples/topcuoglu2002.json"));
  CHECK(s.critical_path_seconds == doctest::Approx(108.0));
}

TEST_CASE("DOT import: SimGrid's DAG convention") {
  const Graph g = hs::parse_dot(R"(// a comment
digraph G {
  node [kind="gemm"];
  root [size="0"];
  a [size="1e9"]; b [size=2e9, kind=conv2d label="b node"]
  root -> a [size="1000"];
  root -> b
  a -> c -> end [size=4e6]   /* chain: two edges */
  b -> c [size="8e6"];
  b -> c [size="1"];
  # preprocessor line
}
)",
                                "inline.dot");
  CHECK(g.op_count() == 5);
  CHECK(g.op(*g.find_op("a")).flops == 1e9);
  CHECK(g.op(*g.find_op("a")).kind == "gemm");
  CHECK(g.op(*g.find_op("b")).kind == "conv2d");
  CHECK(g.op(*g.find_op("c")).flops == 0);
  double total = 0;
  for (const auto& t : g.tensors)
    total += t.bytes;
  CHECK(total == 1000 + 0 + 4e6 + 4e6 + 8e6 + 1);
  CHECK(g.tensor_count() == 6);
  CHECK(g.predecessors(*g.find_op("c")).size() == 2);
}

TEST_CASE("DOT import: an edge of size 0 or below is a plain dependency, as in SimGrid's examples") {
  const Graph g = hs::parse_dot(R"(digraph G {
  end [size="1e9"]; 0 [size="1e9"]; 1 [size="2e9"]; 2 [size="3e9"];
  0->1 [size="-1"];
  1->2 [size="0.0"];
  2->end ;
  root->0 [size="1e4"];
})",
                                "deps.dot");
  CHECK(g.op_count() == 5);
  CHECK(g.tensor_count() == 4);
  double total = 0;
  for (const auto& t : g.tensors)
    total += t.bytes;
  CHECK(total == 1e4); // the dependency edges move nothing
  CHECK(g.predecessors(*g.find_op("1")) == std::vector<hs::OpId>{*g.find_op("0")});
  CHECK(g.predecessors(*g.find_op("2")) == std::vector<hs::OpId>{*g.find_op("1")});
  // A negative node size is still an error; so is a non-finite edge size.
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n a -> b [size=inf];\n}\n", "x.dot"),
                       "x.dot: line 2: size must be a finite number, not 'inf'", hs::InputError);
}

TEST_CASE("DOT import errors name the file and the line") {
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n a [size=1];\n b [size=-4];\n}\n", "x.dot"),
                       "x.dot: line 3: size must be a non-negative number, not '-4'", hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n a -> b\n a -- c\n}", "x.dot"),
                       doctest::Contains("x.dot: line 3"), hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("graph G { a -- b }", "x.dot"), doctest::Contains("digraph"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n a -> b;\n", "x.dot"), doctest::Contains("never closed"),
                       hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n a -> b;\n b -> a;\n}", "x.dot"),
                       doctest::Contains("cycle"), hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G {\n\n a [size=\"1e9]\n}", "x.dot"),
                       doctest::Contains("x.dot: line 3: string is never closed"), hs::InputError);
  CHECK_THROWS_WITH_AS(hs::parse_dot("digraph G { subgraph s { a } }", "x.dot"),
                       doctest::Contains("subgraphs"), hs::InputError);
}
