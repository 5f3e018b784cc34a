// Bad input, kind by kind: each is refused with a non-zero exit and a message that names the file and the
// place in it, never a crash and never a number. The cases are written as a table: the input, the
// command, and what the message must contain.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using hs::test::heterosim;
using hs::test::Outcome;

fs::path scratch(const std::string& name) {
  return hs::test::scratch_dir("input-validation", name);
}

using hs::test::write_file;

// A two-device platform: `device_a` adds fields to the first device, `extra` top-level fields; `power` is
// the first device's power (or p-state) field and `peak` its fp32 peak.
std::string platform(const std::string& device_a = "", const std::string& extra = "",
                     const std::string& routes = R"([{"from": "a", "to": "b", "links": ["l"]}])",
                     const std::string& power = R"("power": {"idle": "10W", "busy": "100W"})",
                     const std::string& peak = "10Tf") {
  return R"({"format": "heterosim-platform", "version": 1, "name": "p",
    "devices": [{"name": "a", "kind": "gpu", "peak": {"fp32": ")" +
         peak + R"("}, "memory": {"bandwidth": "1TBps",
                 "capacity": "16GB"}, )" +
         power + device_a + R"(},
                {"name": "b", "kind": "cpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "100GBps",
                 "capacity": "64GB"}, "power": {"idle": "10W", "busy": "100W"}}],
    "links": [{"name": "l", "bandwidth": "16GBps", "latency": "1us"}],
    "routes": )" +
         routes + extra + "}";
}

std::string graph(const std::string& first_op_extra = "") {
  return R"({"format": "heterosim-graph", "version": 1, "name": "g",
    "ops": [{"name": "x", "kind": "gemm", "flops": 1e9)" +
         first_op_extra + R"(}, {"name": "y", "kind": "elementwise", "flops": 1e6}],
    "tensors": [{"name": "t", "bytes": 1e6, "producer": "x", "consumers": ["y"]}]})";
}

struct Case {
  std::string name;
  std::string file;     // written to the scratch directory under this name (empty: none)
  std::string contents; // of the file
  std::string args;     // the command; FILE is replaced by the file's path, DIR by the scratch directory
  std::vector<std::string> expect; // substrings of the message
};

void check(const Case& c) {
  CAPTURE(c.name);
  const fs::path dir = scratch(c.name);
  std::string args = c.args;
  if (!c.file.empty()) {
    const fs::path f = write_file(dir / c.file, c.contents);
    for (auto at = args.find("FILE"); at != std::string::npos; at = args.find("FILE"))
      args.replace(at, 4, f.string());
  }
  for (auto at = args.find("DIR"); at != std::string::npos; at = args.find("DIR"))
    args.replace(at, 3, dir.string());
  const Outcome r = heterosim(args);
  CAPTURE(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code < 128); // an error, not a crash
  for (const auto& e : c.expect)
    CHECK_MESSAGE(r.output.find(e) != std::string::npos, "missing: ", e);
}

const std::string kGraph = " --workload " + hs::test::source_dir() + "/workloads/examples/topcuoglu2002.json";

std::string run_on(const std::string& platform_arg, const std::string& workload_arg = "random:ops=20") {
  return "run --engine evaluator -q --platform " + platform_arg + " --workload " + workload_arg +
         " --out DIR/o";
}

} // namespace

TEST_CASE("values that become infinite, NaN or subnormal after parsing or unit scaling are refused") {
  for (
      const Case& c : std::vector<Case>{
          {"peak",
           "p.json",
           platform("", "", R"([{"from": "a", "to": "b", "links": ["l"]}])",
                    R"("power": {"idle": "10W", "busy": "100W"})", "1e300Tf"),
           run_on("FILE"),
           {"p.json: devices[0].peak.fp32", "out of range"}},
          {"launch",
           "p.json",
           platform(R"(, "launch_overhead": "1e308h")"),
           run_on("FILE"),
           {"p.json: devices[0].launch_overhead", "out of range"}},
          {"overflow",
           "p.json",
           platform(R"(, "launch_overhead": 1e400)"),
           run_on("FILE"),
           {"p.json: line 3, column 100", "out of range"}},
          {"subnormal-speed",
           "p.json",
           platform(
               "", "", R"([{"from": "a", "to": "b", "links": ["l"]}])",
               R"("pstates": [{"speed": 1, "idle": "1W", "busy": "2W"}, {"speed": 5e-324, "idle": "1W", "busy": "2W"}])"),
           run_on("FILE"),
           {"p.json: devices[0].pstates[1].speed"}},
          {"lone-pstate",
           "p.json",
           platform("", "", R"([{"from": "a", "to": "b", "links": ["l"]}])",
                    R"("pstates": [{"speed": 0.5, "idle": "1W", "busy": "2W"}])"),
           run_on("FILE"),
           {"p.json: devices[0].pstates[0].speed", "must be 1"}},
          {"builder-nan",
           "",
           "",
           run_on("workstation", "random:ops=20,alpha=nan"),
           {"random", "alpha", "finite"}},
          {"dot-inf",
           "g.dot",
           "digraph g { a [size=1e9]; b [size=1]; a -> b [size=inf]; }",
           run_on("workstation", "FILE"),
           {"g.dot: line 1", "size"}},
      })
    check(c);
}

TEST_CASE("unknown op kinds are refused wherever a kind is named") {
  for (
      const Case& c : std::vector<Case>{
          {"graph",
           "g.json",
           graph().replace(graph().find("\"gemm\""), 6, "\"frobnicate\""),
           run_on("workstation", "FILE"),
           {"g.json: ops[0].kind", "unknown op kind 'frobnicate'"}},
          {"dot",
           "g.dot",
           "digraph g {\n a [kind=frobnicate, size=1e9];\n b [size=1];\n a -> b [size=1e6];\n}",
           run_on("workstation", "FILE"),
           {"g.dot: line 2", "unknown op kind 'frobnicate'"}},
          {"efficiency",
           "p.json",
           platform(R"(, "efficiency": {"convv2d": 0.5})"),
           run_on("FILE"),
           {"p.json: devices[0].efficiency.convv2d", "unknown op kind 'convv2d'"}},
          {"supported",
           "p.json",
           platform(R"(, "supported_ops": ["gemm", "convv2d"])"),
           run_on("FILE"),
           {"p.json: devices[0].supported_ops[1]", "unknown op kind 'convv2d'"}},
          {"expert-table",
           "c.json",
           R"({"expert-grouping": {"table": {"convv2d": ["gpu"]}}})",
           run_on("workstation") + " --policy expert-grouping --policy-config FILE",
           {"c.json: expert-grouping.table.convv2d", "unknown op kind 'convv2d'"}},
          {"calibration-kind",
           "cal.json",
           R"({"format": "heterosim-calibration", "version": 1, "devices": {"gpu": {"efficiency": {"gemmm": 0.5}}}})",
           run_on("workstation") + " --calibration FILE",
           {"cal.json: devices.gpu.efficiency.gemmm"}},
      })
    check(c);
}

TEST_CASE("empty inputs, unmatched calibrations, missing routes and stored fronts are refused by name") {
  for (
      const Case& c : std::vector<Case>{
          {"empty-graph",
           "g.json",
           R"({"format": "heterosim-graph", "version": 1, "name": "g", "ops": []})",
           run_on("workstation", "FILE"),
           {"g.json", "the graph has no ops"}},
          {"empty-dot", "g.dot", "digraph g { }", run_on("workstation", "FILE"), {"g.dot", "no ops"}},
          {"calibration-device",
           "cal.json",
           R"({"format": "heterosim-calibration", "version": 1, "devices": {"V100": {"efficiency": {"gemm": 0.5}}}})",
           run_on("workstation") + " --calibration FILE",
           {"cal.json: entry 'V100'", "matches no device, kind or model"}},
          {"missing-route",
           "p.json",
           platform("", "", "[]"),
           run_on("FILE"),
           {"p.json: routes", "no route from 'a' to 'b'", "unreachable"}},
          {"front-negative",
           "front.json",
           R"({"format": "heterosim-pareto-front", "version": 1, "objectives": [{"name": "latency"}, {"name": "energy"}],
               "plans": [{"id": 0, "origin": "x", "simgrid": {"latency_s": -1, "energy_j": 1, "memory_ratio": 0.1,
               "precision_penalty": 0}}]})",
           "select --front FILE",
           {"front.json: plans[0].simgrid.latency_s", "negative"}},
          {"front-objective",
           "front.json",
           R"({"format": "heterosim-pareto-front", "version": 1, "objectives": [{"name": "latency"}, {"name": "speed"}],
               "plans": []})",
           "select --front FILE",
           {"front.json: objectives[1].name", "unknown objective 'speed'"}},
          {"error-budget",
           "",
           "",
           "pareto --platform hetero-server --workload random:ops=20,precision=fp16 --budget 10 "
           "--error-budget -1 "
           "--quiet --out DIR/front",
           {"--error-budget", "0 or more"}},
      })
    check(c);
}

TEST_CASE("a refused run leaves no result files, a repeated tensor error names its place once") {
  const fs::path dir = scratch("no-files");
  // 16 GB of parameters on a 16 GB device: the single-device plan cannot fit.
  const fs::path p = write_file(dir / "p.json", platform());
  const fs::path g = write_file(dir / "g.json", graph(R"(, "params": "20GB")"));
  const Outcome r = heterosim("run --platform " + p.string() + " --workload " + g.string() +
                              " --policy fastest-device -q --out " + (dir / "o").string());
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("memory over capacity") != std::string::npos);
  CHECK(r.output.find("no report was written") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "o" / "report.json"));
  CHECK_FALSE(fs::exists(dir / "o" / "timeline.csv"));
  CHECK_FALSE(fs::exists(dir / "o" / "trace.json"));
  const Outcome kept =
      heterosim("run --platform " + p.string() + " --workload " + g.string() +
                " --policy fastest-device -q --allow-over-capacity --out " + (dir / "k").string());
  CHECK(kept.exit_code == 0);
  CHECK(fs::exists(dir / "k" / "report.json"));

  const fs::path twice =
      write_file(dir / "twice.json", R"({"format": "heterosim-graph", "version": 1, "name": "g",
    "ops": [{"name": "x", "flops": 1}, {"name": "y", "flops": 1}],
    "tensors": [{"name": "t", "bytes": 1, "producer": "x", "consumers": ["y"]},
                {"name": "t", "bytes": 1, "producer": "x", "consumers": ["y"]}]})");
  const Outcome dup = heterosim("run --engine evaluator -q --platform workstation --workload " +
                                twice.string() + " --out " + (dir / "d").string());
  CHECK(dup.exit_code != 0);
  CHECK(dup.output.find("duplicate tensor name 't'") != std::string::npos);
  const auto first = dup.output.find("twice.json");
  REQUIRE(first != std::string::npos);
  CHECK(dup.output.find("twice.json", first + 1) == std::string::npos); // the prefix once, not twice
}

TEST_CASE("a run-time policy on a graph no device can run names the op instead of deadlocking") {
  const fs::path dir = scratch("dynamic");
  const fs::path g = write_file(dir / "g.json", R"({"format": "heterosim-graph", "version": 1, "name": "g",
    "ops": [{"name": "x", "flops": 1e6}, {"name": "wide", "flops": 1e6, "precision": "fp8"}],
    "tensors": [{"name": "t", "bytes": 1, "producer": "x", "consumers": ["wide"]}]})");
  const Outcome r = heterosim("run --platform workstation --workload " + g.string() +
                              " --policy eager -q --out " + (dir / "o").string());
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("op 'wide'") != std::string::npos);
  CHECK(r.output.find("fp8") != std::string::npos);
  CHECK(r.output.find("Deadlock") == std::string::npos);
}
