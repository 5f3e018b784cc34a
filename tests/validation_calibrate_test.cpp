// Calibrating a workload from measured ops (validation/op_times.*, workload_matching.*,
// workload_calibration.*): the times file reader names the place of every bad value, the matcher finds
// ops by name, index or order and names the first that does not match, the committed trace fixture
// round-trips to its per-op times, and a fit on times from a known roofline recovers it. The fixture is
// written by tests/data/calibrate/make_fixture.py.
#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "sim/platform.hpp"
#include "validation/op_times.hpp"
#include "validation/profiler_trace.hpp"
#include "validation/workload_calibration.hpp"
#include "validation/workload_matching.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;

namespace {

const std::string kFixture = std::string(HS_SOURCE_DIR) + "/tests/data/calibrate/";

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / ("calibrate-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// The message of reading `text` as a times file, which must name the file.
std::string times_error(const std::string& name, const std::string& text) {
  const std::string path = write_temp(name, text);
  const std::string e = error_of([&] { load_op_times(path); });
  CHECK(e.find(path) != std::string::npos);
  return e;
}

std::vector<double> fastest(const WorkloadMatch& m) {
  return pick_pass(m.times, TracePass::FastestPass);
}

} // namespace

TEST_CASE("the times file reader names the file, line and column of every bad value") {
  const std::string header = "op,kind,seconds,pass\n";
  CHECK(times_error("neg.csv", header + "conv1,conv2d,0.001,0\nbn1,batchnorm,-1e-3,0\n")
            .find("line 3, column seconds") != std::string::npos);
  CHECK(times_error("inf.csv", header + "conv1,conv2d,inf,0\n").find("line 2, column seconds") !=
        std::string::npos);
  CHECK(times_error("nan.csv", header + "conv1,conv2d,nan,0\n").find("expected a number") !=
        std::string::npos);
  CHECK(times_error("zero.csv", header + "conv1,conv2d,0,0\n").find("must be positive") != std::string::npos);
  CHECK(times_error("kind.csv", header + "conv1,convv2d,1e-3,0\n").find("line 2, column kind") !=
        std::string::npos);
  CHECK(times_error("pass.csv", header + "conv1,conv2d,1e-3,1.5\n").find("line 2, column pass") !=
        std::string::npos);
  CHECK(times_error("column.csv", "op,kind,seconds,colour\nconv1,conv2d,1e-3,red\n").find("column colour") !=
        std::string::npos);
  CHECK(times_error("noop.csv", "kind,seconds\nconv2d,1e-3\n").find("no column 'op' or 'index'") !=
        std::string::npos);
  CHECK(times_error("empty.csv", header).find("holds no measured op") != std::string::npos);
  CHECK(times_error("fields.csv", header + "conv1,conv2d\n").find("line 2") != std::string::npos);
}

TEST_CASE("measured ops match a workload by name, by index, or in topological order by kind") {
  const Graph g = load_graph(kFixture + "tiny-cnn.json");
  const OpTimes by_name = load_op_times(kFixture + "times.csv");
  const WorkloadMatch m = match_workload(by_name, g);
  CHECK(m.how == "by name");
  CHECK(m.times.passes == 2);
  CHECK(fastest_pass(m.times) == 0); // pass 1 is 10 % slower
  const auto seconds = fastest(m);
  REQUIRE(seconds.size() == g.ops.size());
  CHECK(seconds[0] == by_name.rows[0].seconds);

  // The same rows under the measurement's own names match in order; under indices, by index.
  OpTimes anonymous = by_name, indexed = by_name;
  for (auto& r : anonymous.rows)
    r.op = "measured " + r.kind;
  for (auto& r : indexed.rows) {
    r.index = *g.find_op(r.op);
    r.op.clear();
  }
  const WorkloadMatch in_order = match_workload(anonymous, g), by_index = match_workload(indexed, g);
  CHECK(in_order.how == "in topological order by kind");
  CHECK(by_index.how == "by index");
  CHECK(fastest(in_order) == seconds);
  CHECK(fastest(by_index) == seconds);
}

TEST_CASE("a times file that does not match the workload is refused, naming the op") {
  const Graph g = load_graph(kFixture + "tiny-cnn.json");
  const auto refused = [&](const std::string& name, const std::string& csv) {
    const OpTimes t = load_op_times(write_temp(name, csv));
    return error_of([&] { match_workload(t, g); });
  };
  // A name the workload lacks, among names it has.
  const std::string unknown =
      refused("unknown.csv", "op,kind,seconds\nconv1,conv2d,1e-3\nconv9,conv2d,1e-3\n");
  CHECK(unknown.find("line 3, column op") != std::string::npos);
  CHECK(unknown.find("no op 'conv9'") != std::string::npos);
  // A kind that is not the op's.
  CHECK(refused("kind.csv", "op,kind,seconds\nconv1,batchnorm,1e-3\n").find("op 'conv1' is a conv2d") !=
        std::string::npos);
  // An op with no time: the first, by name and position.
  const std::string missing = refused("missing.csv", "op,kind,seconds\nconv1,conv2d,1e-3\n");
  CHECK(missing.find("op 'bn1' (position 1 of the workload's 14 ops that do work)") != std::string::npos);
  CHECK(missing.find("has no time") != std::string::npos);
  // In order: the first op whose kind differs, with the measured op's line.
  const std::string order = refused("order.csv", "op,kind,seconds\nA,conv2d,1e-3\nB,elementwise,1e-3\n");
  CHECK(order.find("op 'bn1' (position 1") != std::string::npos);
  CHECK(order.find("is a batchnorm but the times file's op 1 is B (line 3)") != std::string::npos);
  // A repeated op in one pass.
  CHECK(refused("twice.csv", "op,kind,seconds\nconv1,conv2d,1e-3\nconv1,conv2d,1e-3\n")
            .find("already has a time") != std::string::npos);
}

TEST_CASE("the committed profiler trace fixture round-trips to its per-op times") {
  const OpTimes trace = op_times_from_trace(kFixture + "trace.json");
  const OpTimes expected = load_op_times(kFixture + "trace-times.csv");
  REQUIRE(trace.rows.size() == expected.rows.size()); // views and the worker thread left out
  for (std::size_t i = 0; i < trace.rows.size(); ++i) {
    CAPTURE(i);
    CHECK(trace.rows[i].op == expected.rows[i].op);
    CHECK(trace.rows[i].kind == expected.rows[i].kind);
    CHECK(trace.rows[i].seconds == expected.rows[i].seconds);
  }
  // Matched to the workload (two passes, in order), written as a times file and read back: the same times.
  const Graph g = load_graph(kFixture + "tiny-cnn.json");
  const WorkloadMatch m = match_workload(trace, g);
  CHECK(m.times.passes == 2);
  std::vector<OpTimeRow> rows;
  for (OpId id = 0; id < g.op_count(); ++id)
    rows.push_back(
        {g.op(id).name, id, g.op(id).kind, m.times.seconds[static_cast<std::size_t>(id)][0], 0, ""});
  const OpTimes again = load_op_times(write_temp("again.csv", op_times_csv(rows)));
  CHECK(fastest(match_workload(again, g)) == fastest(m));
}

TEST_CASE("a GPU trace times each op by the kernels it launched, and measures the host's issue time") {
  // gpu-trace.json: each op's kernels add up to its roofline time (times.csv's pass 0), a convolution's in
  // two kernels, a linear's in a memset and a GEMM; the host starts an op every 12 us; one kernel is
  // launched by another thread.
  const ProfilerTrace trace = read_profiler_trace(kFixture + "gpu-trace.json");
  CHECK(trace.device_events == 22);
  CHECK(trace.unattributed == 1);
  CHECK(trace_issue_seconds(trace.ops) == doctest::Approx(12e-6).epsilon(1e-9));
  const OpTimes gpu = op_times_from_trace(kFixture + "gpu-trace.json");
  CHECK(gpu.device_times);
  CHECK(gpu.issue_seconds == doctest::Approx(12e-6).epsilon(1e-9));
  const OpTimes expected = load_op_times(kFixture + "times.csv");
  REQUIRE(gpu.rows.size() * 2 == expected.rows.size()); // one pass against two
  for (std::size_t i = 0; i < gpu.rows.size(); ++i) {
    CAPTURE(i);
    CHECK(gpu.rows[i].seconds == doctest::Approx(expected.rows[i].seconds).epsilon(1e-9));
  }
  // A CPU trace has no device time: its ops keep their host times, and no issue time is measured.
  const OpTimes cpu = op_times_from_trace(kFixture + "trace.json");
  CHECK_FALSE(cpu.device_times);
  CHECK(cpu.issue_seconds == 0.0);
}

TEST_CASE("a fit on times from a known roofline recovers its parameters, held out and in sample") {
  // make_fixture.py: e[conv2d] = 0.5, e[gemm] = 0.8, memory efficiency 0.6, launch 20 us.
  const Graph g = load_graph(kFixture + "tiny-cnn.json");
  const Platform p = load_platform(kFixture + "tiny-cpu.json");
  const auto seconds = fastest(match_workload(load_op_times(kFixture + "times.csv"), g));
  WorkloadFitOptions o;
  o.framework_model = false;
  const WorkloadCalibration c = calibrate_workload(g, p, 0, seconds, o);
  CHECK(c.ops.size() == 14);
  CHECK(c.roofline.efficiency.at("conv2d") == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(c.roofline.efficiency.at("gemm") == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(c.roofline.memory_efficiency == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(c.roofline.launch_overhead == doctest::Approx(20e-6).epsilon(1e-6));
  // Memory-bound kinds keep the nominal compute peak, written out so that `run` uses the same.
  CHECK(c.roofline.efficiency.at("batchnorm") == 1.0);
  CHECK(c.in_sample.per_op.max < 1e-4);
  CHECK(c.held_out.per_op.count == 2); // the third of each kind: conv3 (of 5 convolutions), relu2 (of 4)
  CHECK(c.held_out.per_op.max < 1e-4);
  CHECK(c.in_sample.measured == doctest::Approx(c.in_sample.predicted).epsilon(1e-6));

  // With the framework model's trees on the ops that name their dimensions: the same run, in sample.
  const WorkloadCalibration t = calibrate_workload(g, p, 0, seconds);
  CHECK(t.has_framework);
  CHECK(t.framework_ops == 14);
  CHECK(t.in_sample.predicted == doctest::Approx(t.in_sample.measured).epsilon(0.05));
}
