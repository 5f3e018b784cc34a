// `heterosim build-workload` and `heterosim info` as a user meets them.
#include "cli_support.hpp"
#include "sim/graph_io.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

using hs::test::heterosim;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "heterosim-workloads-cli";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  fs::remove(p);
  return p;
}

} // namespace

TEST_CASE("build-workload writes the builder's graph and refuses to overwrite it without --force") {
  const fs::path out = scratch("bert.json");
  const auto first = heterosim(
      "build-workload bert-base --batch 2 --seq 16 --precision fp16 --mode training --out " + out.string());
  REQUIRE(first.exit_code == 0);
  const hs::Graph written = hs::load_graph(out.string());
  const hs::Graph direct = hs::load_workload("bert-base:batch=2,seq=16,precision=fp16,mode=training");
  CHECK(hs::graph_to_json(written).dump() == hs::graph_to_json(direct).dump());

  const auto again = heterosim("build-workload bert-base --batch 2 --seq 16 --out " + out.string());
  CHECK(again.exit_code != 0);
  CHECK(again.output.find("--force") != std::string::npos);
  CHECK(heterosim("build-workload bert-base --batch 2 --seq 16 --force --out " + out.string()).exit_code ==
        0);
  CHECK(hs::load_graph(out.string()).op_count() < written.op_count()); // now the inference graph

  const fs::path gpt = scratch("gpt.json");
  REQUIRE(heterosim("build-workload gpt2-small --seq 8 --set decode=3 --out " + gpt.string()).exit_code == 0);
  CHECK(hs::load_graph(gpt.string()).find_op("step3.sample").has_value());
}

TEST_CASE("build-workload and info reject bad input by name, with a non-zero exit") {
  const auto unknown = heterosim("build-workload resnet51 --out " + scratch("x.json").string());
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.output.find("resnet51") != std::string::npos);
  const auto bad = heterosim("build-workload resnet50 --batch -3 --out " + scratch("y.json").string());
  CHECK(bad.exit_code != 0);
  CHECK(bad.output.find("batch") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch("y.json")));

  const fs::path dot = scratch("bad.dot");
  std::ofstream(dot) << "digraph G {\n  a -> b [size=\"1e6\"];\n  b [size=\"lots\"];\n}\n";
  const auto info = heterosim("info --workload " + dot.string());
  CHECK(info.exit_code != 0);
  CHECK(info.output.find(dot.string() + ": line 3: size must be a non-negative number") != std::string::npos);
}

TEST_CASE("info prints totals, parameters, intensity by op kind and the critical path") {
  const auto r = heterosim("info --workload resnet50");
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("parameters    25557032") != std::string::npos);
  CHECK(r.output.find("conv2d             53") != std::string::npos);
  CHECK(r.output.find("critical path 167 ops") != std::string::npos);
  CHECK(r.output.find("host issue") == std::string::npos); // a captured graph's host issues ahead
  // An eager graph's host time: 416 ops at eager PyTorch's measured 7.14 us each (workloads/eager_issue.hpp).
  CHECK(heterosim("info --workload bert-large:implementation=huggingface")
            .output.find("host issue    2.972 ms over 416 ops") != std::string::npos);
  const auto t =
      heterosim("info --workload " + std::string(HS_SOURCE_DIR) + "/workloads/examples/topcuoglu2002.json");
  CHECK(t.output.find("108.000000 s") != std::string::npos);
  // Same input, same output.
  CHECK(heterosim("info --workload topcuoglu:v=50,seed=9").output ==
        heterosim("info --workload topcuoglu:v=50 --seed 9").output);
}
