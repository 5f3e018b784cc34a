#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/graph_io.hpp"

#include <doctest/doctest.h>

using namespace hs;

namespace {
std::string error_of(const std::string& json) {
  try {
    parse_graph(nlohmann::json::parse(json), "g.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("the fluent builder makes the graph it reads like") {
  GraphBuilder b("diamond");
  auto in = b.op("in").kind("input").writes(100);
  auto l = b.op("left").kind("gemm").flops(1e9);
  auto r = b.op("right").kind("elementwise").flops(1e6);
  auto out = b.op("out").kind("elementwise");
  in.feeds(l, 100);
  in.feeds(r, 100);
  l.feeds(out, 50);
  r.feeds(out, 50);
  const Graph g = std::move(b).build();
  CHECK(g.op_count() == 4);
  CHECK(g.tensor_count() == 4);
  CHECK(g.topological_order().front() == in.id());
  CHECK(g.topological_order().back() == out.id());
  CHECK(g.predecessors(out.id()).size() == 2);
  CHECK(g.total_flops() == doctest::Approx(1e9 + 1e6));
}

TEST_CASE("a cycle is reported with the ops on it") {
  GraphBuilder b("loop");
  auto x = b.op("x"), y = b.op("y"), z = b.op("z"), w = b.op("w");
  w.feeds(x, 1);
  x.feeds(y, 1);
  y.feeds(z, 1);
  z.feeds(x, 1);
  try {
    (void)std::move(b).build();
    FAIL("a cyclic graph was accepted");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("cycle") != std::string::npos);
    CHECK_MESSAGE(m.find("x -> y -> z -> x") != std::string::npos, m);
  }
}

TEST_CASE("graph file round trip keeps every field") {
  GraphBuilder b("rt");
  auto a = b.op("a")
               .kind("gemm")
               .precision("fp16")
               .flops(2e9)
               .reads(3e6)
               .writes(1e6)
               .params(5e5)
               .workspace(7)
               .sensitivity(0.5);
  auto c = b.op("c").only_on({"gpu"}).time_on("P1", 3.0);
  a.feeds_in(c, 2.5, "a2c");
  const Graph g = std::move(b).build();
  const Graph back = parse_graph(graph_to_json(g), "rt.json");
  CHECK(graph_to_json(back) == graph_to_json(g));
  CHECK(back.op(0).precision == "fp16");
  CHECK(*back.tensor(0).comm_time == 2.5);
}

TEST_CASE("graph file errors name the file and the place") {
  CHECK(error_of(R"({"version": 1, "ops": [{"name": "a", "flops": -5}]})")
            .find("ops[0].flops: must not be negative") != std::string::npos);
  CHECK(error_of(R"({"version": 1, "ops": [{"name": "a"}, {"name": "a"}]})").find("duplicate op name 'a'") !=
        std::string::npos);
  CHECK(
      error_of(
          R"({"version": 1, "ops": [{"name": "a"}], "tensors": [{"producer": "a", "consumers": ["ghost"]}]})")
          .find("tensors[0].consumers[0]: unknown op 'ghost'") != std::string::npos);
  CHECK(
      error_of(R"({"version": 1, "ops": [{"name": "a"}], "tensors": [{"producer": "zz", "consumers": []}]})")
          .find("tensors[0].producer") != std::string::npos);
  CHECK(
      error_of(
          R"({"version": 1, "ops": [{"name": "a"}, {"name": "b"}], "tensors": [{"producer": "a", "consumers": ["b"], "bytes": "-3MB"}]})")
          .find("tensors[0].bytes") != std::string::npos);
  CHECK(error_of(R"({"version": 2, "ops": []})").find("unsupported version") != std::string::npos);
  CHECK(error_of(R"({"version": 1, "ops": [{"name": "a", "flop": 3}]})").find("unknown field 'flop'") !=
        std::string::npos);
  CHECK(error_of(R"({"version": 1, "ops": [{"name": "a", "times": {"P1": "3 parsecs"}}]})")
            .find("ops[0].times.P1") != std::string::npos);
  CHECK(error_of(R"({"version": 1, "ops": [{"name": "a", "dims": {"m": 8, "transposed_b": 2}}]})")
            .find("ops[0].dims.transposed_b: a layout flag is 0 or 1") != std::string::npos);
}
