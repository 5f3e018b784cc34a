// The framework cost model: the model tree finds a library's dispatch regimes, the intra-op thread model is
// the single-thread model at one thread, a leave-one-network-out calibration shows what it excluded, and
// the torch run files are checked like every other input.
#include "sim/error.hpp"
#include "sim/model_tree.hpp"
#include "validation/framework_cost_model.hpp"
#include "validation/profiler_trace.hpp"
#include "validation/torch_runs.hpp"
#include "validation/torch_validation.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;

namespace {

// A 1x1 convolution at batch 1 on one thread runs at 6 GFLOP/s (a GEMM path); every other at 100 GFLOP/s.
double conv_seconds(double kh, double batch, double flops) {
  return flops / ((kh == 1 && batch < 16) ? 6e9 : 100e9);
}

KernelPoint conv_point(double kh, double batch, double flops, int threads, double seconds) {
  KernelPoint p;
  p.kind = "conv2d";
  p.shape = {{"kh", kh}, {"batch", batch}, {"threads", threads}};
  p.flops = flops;
  p.bytes = flops / 10;
  p.p50 = p.p95 = seconds;
  p.label = "conv kh=" + std::to_string(kh) + " b=" + std::to_string(batch) + " f=" + std::to_string(flops);
  return p;
}

std::vector<KernelPoint> conv_grid(bool with_two_threads) {
  std::vector<KernelPoint> pts;
  for (double kh : {1.0, 3.0, 7.0})
    for (double batch : {1.0, 8.0, 32.0})
      for (double flops : {1e8, 3e8, 1e9, 3e9, 1e10}) {
        pts.push_back(conv_point(kh, batch, flops, 1, conv_seconds(kh, batch, flops)));
        if (with_two_threads) pts.push_back(conv_point(kh, batch, flops, 2, flops / 180e9));
      }
  return pts;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

} // namespace

TEST_CASE("a model tree separates two regimes of one kind and fits each one's size law") {
  std::vector<TreeSample> s;
  for (double kh : {1.0, 3.0})
    for (double lf : {18.0, 19.0, 20.0, 21.0, 22.0})
      s.push_back({{kh, lf}, lf + (kh == 1 ? 3.0 : 0.0)}); // log t = log flops + regime offset
  ModelTreeOptions o;
  o.slope_feature = 1;
  const ModelTree tree({"kh", "log_flops"}, s, o);
  CHECK(tree.leaf_count() == 2);
  CHECK(tree.leaf_of({1.0, 20.0}) != tree.leaf_of({3.0, 20.0}));
  CHECK(tree.predict({1.0, 25.0}) == doctest::Approx(28.0)); // extrapolates each regime's own law
  CHECK(tree.predict({3.0, 25.0}) == doctest::Approx(25.0));
  CHECK(tree.describe().find("kh <= 2") != std::string::npos);
}

TEST_CASE("a model tree of depth 0 is one constant, and bad samples are refused") {
  ModelTreeOptions o;
  o.max_depth = 0;
  const ModelTree tree({"x"}, {{{1.0}, 1.0}, {{2.0}, 2.0}, {{3.0}, 6.0}}, o);
  CHECK(tree.leaf_count() == 1);
  CHECK(tree.predict({10.0}) == doctest::Approx(3.0));
  CHECK_THROWS_AS(ModelTree({"x"}, {}, o), std::invalid_argument);
  CHECK_THROWS_AS(ModelTree({"x"}, {{{1.0, 2.0}, 1.0}}, o), std::invalid_argument);
}

TEST_CASE("the shape-aware model learns a dispatch rule that one rate per kind cannot express") {
  const auto grid = conv_grid(false);
  const FrameworkCostModel shaped(grid);
  const FrameworkCostModel per_kind(grid, {.shape_aware = false});
  const auto slow = conv_point(1, 1, 2e9, 1, 0);
  const auto fast = conv_point(3, 1, 2e9, 1, 0);
  CHECK(shaped.predict(slow, 1) == doctest::Approx(conv_seconds(1, 1, 2e9)).epsilon(0.02));
  CHECK(shaped.predict(fast, 1) == doctest::Approx(conv_seconds(3, 1, 2e9)).epsilon(0.02));
  // One rate for both: the same time for the same FLOPs, wrong by a large factor on one of them.
  CHECK(per_kind.predict(slow, 1) == doctest::Approx(per_kind.predict(fast, 1)));
}

TEST_CASE("the intra-op thread model is exactly the single-thread model at one thread") {
  const FrameworkCostModel both(conv_grid(true));
  const FrameworkCostModel single(conv_grid(false));
  CHECK(both.max_threads() == 2);
  for (const auto& p : conv_grid(false))
    CHECK(both.predict(p, 1) == single.predict(p, 1));
  // At two threads the measured speedup applies: 1x1 at batch 1 gains 30x (oneDNN at 2 threads), 3x3 1.8x.
  const auto p = conv_point(1, 1, 1e9, 2, 0);
  CHECK(both.predict(p, 2) == doctest::Approx(1e9 / 180e9).epsilon(0.05));
  CHECK_THROWS_WITH_AS(both.predict(p, 4), doctest::Contains("not measured at 4 threads"),
                       std::invalid_argument);
  KernelPoint unknown = p;
  unknown.kind = "fft";
  CHECK_THROWS_WITH_AS(both.predict(unknown, 1), doctest::Contains("no training point of kind 'fft'"),
                       std::invalid_argument);
}

TEST_CASE("a calibration fitted without a network lists what it used, and that network is not in it") {
  MeasurementSet grid;
  grid.points = conv_grid(false);
  TorchRunSet runs;
  for (const char* net : {"resnet18", "resnet50", "bert-base"})
    for (int threads : {1, 2}) {
      TorchRun r;
      r.model = r.network = net;
      r.threads = threads;
      r.end_to_end_p50 = 1.0;
      r.ops = {conv_point(3, 1, 1e9, threads, 0.01)};
      runs.runs.push_back(r);
    }
  std::vector<std::string> inputs;
  const auto points = torch_training_points(grid, runs, "resnet50", inputs);
  CHECK(points.size() == grid.points.size() + 4);
  CHECK(inputs.size() == 5);
  for (const auto& line : inputs)
    CHECK(line.find("resnet50") == std::string::npos);
  const auto v = validate_torch(grid, "grid.json", runs, "runs.json");
  REQUIRE(v.rows.size() == 6);
  for (const auto& row : v.rows)
    for (const auto& line : row.fit_inputs)
      CHECK(line.find(row.network + " ") == std::string::npos);
}

TEST_CASE("a torch run file with a bad value names the file and the place") {
  const std::string ok_op =
      R"({"node":"conv1","kind":"conv2d","label":"x","shape":{"threads":1},"flops":1,"bytes":1,)";
  const auto file = [&](const std::string& op_tail, const std::string& run_extra) {
    return R"({"format":"heterosim-torch-runs","version":1,"runs":[{"model":"m","network":"m","batch":1,)"
           R"("sequence":0,"threads":1,"repeats":3,"end_to_end_p50_s":0.1,"end_to_end_p95_s":0.2)" +
           run_extra + R"(,"ops":[)" + ok_op + op_tail + "]}]}";
  };
  CHECK(load_torch_runs(write_temp("ok.json", file(R"("p50_s":0.01})", ""))).runs.at(0).ops.size() == 1);
  const auto bad_time = write_temp("bad-time.json", file(R"("p50_s":-1})", ""));
  CHECK_THROWS_WITH_AS(load_torch_runs(bad_time), doctest::Contains("p50_s"), InputError);
  CHECK_THROWS_WITH_AS(load_torch_runs(bad_time), doctest::Contains(bad_time.c_str()), InputError);
  const auto too_fast = write_temp("bad-min.json", file(R"("p50_s":0.01,"min_s":0.02})", ""));
  CHECK_THROWS_WITH_AS(load_torch_runs(too_fast), doctest::Contains("at most P50"), InputError);
  const auto unknown = write_temp("unknown.json", file(R"("p50_s":0.01})", R"(,"colour":"red")"));
  CHECK_THROWS_WITH_AS(load_torch_runs(unknown), doctest::Contains("colour"), InputError);
}

TEST_CASE("a profiler trace gives each model op its measured time, and a trace of another model is refused") {
  // A conv that called oneDNN, a view, a batch norm, on the model's thread; one event on a worker thread.
  const std::string events =
      R"([{"name":"aten::conv2d","ph":"X","ts":100,"dur":50,"tid":1,"pid":"CPU"},)"
      R"({"name":"aten::mkldnn_convolution","ph":"X","ts":110,"dur":30,"tid":1,"pid":"CPU"},)"
      R"({"name":"aten::view","ph":"X","ts":160,"dur":1,"tid":1,"pid":"CPU"},)"
      R"({"name":"aten::batch_norm","ph":"X","ts":170,"dur":20,"tid":1,"pid":"CPU"},)"
      R"({"name":"aten::add","ph":"X","ts":100,"dur":5,"tid":2,"pid":"CPU"},)"
      R"({"name":"ProfilerStep","ph":"i","ts":0,"tid":1,"pid":"CPU"}])";
  const auto path = write_temp("trace.json", events);
  const auto trace = load_profiler_trace(path);
  REQUIRE(trace.size() == 3); // the model's thread only; the oneDNN call nests in its conv
  CHECK(trace[0].name == "aten::conv2d");
  CHECK(trace[0].seconds == doctest::Approx(50e-6));
  CHECK(trace[0].calls == std::vector<std::string>{"aten::mkldnn_convolution"});
  // The object form ("traceEvents") reads the same.
  CHECK(load_profiler_trace(write_temp("trace-object.json", R"({"traceEvents":)" + events + "}")).size() ==
        3);

  TorchRun run;
  run.model = "tiny";
  KernelPoint conv, view, bn;
  conv.kind = "conv2d";
  conv.flops = conv.bytes = 1;
  conv.label = "conv1";
  view.kind = "view";
  view.label = "flatten";
  bn.kind = "batchnorm";
  bn.bytes = 1;
  bn.label = "bn1";
  run.ops = {conv, view, bn};
  const auto seconds = trace_op_seconds(trace, run, path);
  REQUIRE(seconds.size() == 3);
  CHECK(seconds[0] == doctest::Approx(50e-6));
  CHECK(seconds[1] == 0.0);
  CHECK(seconds[2] == doctest::Approx(20e-6));
  run.ops = {bn, view, conv};
  CHECK_THROWS_WITH_AS(trace_op_seconds(trace, run, path),
                       doctest::Contains("is a batchnorm but the trace's op 0"), InputError);
  run.ops = {conv, view, bn, bn};
  CHECK_THROWS_WITH_AS(trace_op_seconds(trace, run, path), doctest::Contains("the trace ends before this op"),
                       InputError);
  CHECK_THROWS_AS(load_profiler_trace(write_temp("empty-trace.json", "[]")), InputError);
}

TEST_CASE("a trace of several passes gives each op its fastest, or its time in the fastest pass") {
  // Two passes of conv then batch norm: conv 50 then 40 us, batch norm 10 then 30 us. Each op's fastest
  // (40 + 10 us) adds up to less than either pass did (60 and 70 us); the first pass is the fastest.
  const auto path = write_temp(
      "two-passes.json", R"([{"name":"aten::conv2d","ph":"X","ts":0,"dur":50,"tid":1,"pid":"CPU"},)"
                         R"({"name":"aten::batch_norm","ph":"X","ts":60,"dur":10,"tid":1,"pid":"CPU"},)"
                         R"({"name":"aten::conv2d","ph":"X","ts":100,"dur":40,"tid":1,"pid":"CPU"},)"
                         R"({"name":"aten::batch_norm","ph":"X","ts":150,"dur":30,"tid":1,"pid":"CPU"}])");
  TorchRun run;
  run.model = "tiny";
  KernelPoint conv, bn;
  conv.kind = "conv2d";
  conv.label = "conv1";
  bn.kind = "batchnorm";
  bn.label = "bn1";
  run.ops = {conv, bn};
  const auto trace = load_profiler_trace(path);
  const auto each = trace_op_seconds(trace, run, path, TracePass::FastestEach);
  CHECK(each[0] == doctest::Approx(40e-6));
  CHECK(each[1] == doctest::Approx(10e-6));
  const auto pass = trace_op_seconds(trace, run, path, TracePass::FastestPass);
  CHECK(pass[0] == doctest::Approx(50e-6));
  CHECK(pass[1] == doctest::Approx(10e-6));
}

TEST_CASE("the committed profiler traces match their runs op by op and add up to the measured run") {
  const auto runs =
      load_torch_runs(std::string(HS_SOURCE_DIR) + "/validation/measurements/torch/models.json");
  int traced = 0;
  for (const auto& run : runs.runs) {
    if (run.profiler_trace.empty()) continue;
    ++traced;
    CAPTURE(run.model);
    CAPTURE(run.threads);
    const auto seconds = trace_op_seconds(load_profiler_trace(run.profiler_trace), run, run.profiler_trace);
    double sum = 0.0;
    for (double s : seconds)
      sum += s;
    // The traced run is one more run of the same model: its ops add up to about the measured time.
    CHECK(sum == doctest::Approx(run.end_to_end()).epsilon(0.25));
  }
  CHECK(traced == static_cast<int>(runs.runs.size()));
}
