// The harness against the committed measurement sets (not live timing): the errors it reports on
// held-out data must stay under the thresholds recorded in validation/measurements/thresholds.json, and
// the report must be byte-identical from run to run.
#include "sim/json_input.hpp"
#include "validation/cpu_validation.hpp"
#include "validation/deepbench.hpp"
#include "validation/learned_fit.hpp"
#include "validation/published_boards.hpp"
#include "validation/published_kernels.hpp"
#include "validation/published_wave.hpp"
#include "validation/torch_validation.hpp"

#include <cmath>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(HS_SOURCE_DIR) + "/validation";

double threshold(const std::string& key) {
  const Json j = read_json_file(kDir + "/measurements/thresholds.json");
  return j.at(key).at("max_percent").get<double>();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::string& args) {
  const int status = std::system((std::string(HS_CLI) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

} // namespace

TEST_CASE("held-out CPU kernels stay within the recorded error after calibration") {
  const MeasurementSet m = load_measurement_set(kDir + "/measurements/cpu-kernels.json");
  const CpuKernelValidation v = validate_cpu_kernels(m);
  CHECK(v.test > 10);
  CHECK(v.train > 2 * v.test - 5); // two thirds train, one third held out
  CHECK(v.calibrated_all.mape <= threshold("cpu_kernels_calibrated_mape"));
  // Calibration must beat the nominal figures on data it has not seen.
  CHECK(v.calibrated_all.mape < v.nominal_all.mape);
  const CpuKernelValidation co = validate_cpu_kernels(m, 2);
  CHECK(co.calibrated_all.mape <= threshold("cpu_kernels_co_running_calibrated_mape"));
}

TEST_CASE("SimGrid replays of the committed whole-graph executions stay within the recorded error") {
  const MeasurementSet m = load_measurement_set(kDir + "/measurements/cpu-kernels.json");
  FitsByThreads fits;
  for (int threads : co_running_counts(m))
    fits[threads] = validate_cpu_kernels(m, threads).fit;
  CHECK(fits.size() == 2); // alone, and with both cores busy
  const EndToEndValidation e =
      predict_executions(load_execution_set(kDir + "/measurements/cpu-executions.json"), m, fits);
  CHECK(e.rows.size() >= 4);
  CHECK(e.simgrid.mape <= threshold("end_to_end_simgrid_mape"));
  CHECK(std::abs(e.simgrid.mean_signed) <= threshold("end_to_end_simgrid_abs_bias"));
  // The executor's own time per op is what moved the bias: without it the replays are faster on average.
  CHECK(e.simgrid_without_executor.mean_signed < e.simgrid.mean_signed);
  CHECK(e.share_adjusted.count == static_cast<int>(e.rows.size()));
  CHECK(e.share_adjusted.mape <= threshold("end_to_end_share_adjusted_mape"));
  CHECK(e.measured_ops_replay.count == static_cast<int>(e.rows.size()));
  CHECK(e.measured_ops_replay.mape <= threshold("end_to_end_measured_ops_replay_mape"));
  for (const auto& r : e.rows) {
    // Threads share memory and transfers are free, so SimGrid and the analytic timeline must agree.
    CHECK(r.simgrid == doctest::Approx(r.analytic).epsilon(1e-6));
    // Replayed with the measured op times: one thread runs them one after another (their sum); two
    // threads overlap some, never beyond the sum or below half of it.
    if (r.threads == 1) CHECK(r.measured_ops_replay == doctest::Approx(r.measured_op_sum).epsilon(1e-9));
    CHECK(r.measured_ops_replay <= r.measured_op_sum * (1 + 1e-9));
    CHECK(r.measured_ops_replay >= r.measured_op_sum / r.threads * (1 - 1e-9));
  }
}

TEST_CASE("DeepBench: datasheet-only and calibrated errors on held-out problems") {
  const auto sheets = load_gpu_datasheets(kDir + "/gpu_datasheets.csv");
  const auto gemm_points = load_deepbench(kDir + "/measurements/deepbench", "gemm", sheets);
  CHECK(gemm_points.size() == 2080); // every GEMM row has datasheet figures
  // Known answer: V100 fp32, m=1760 n=16 k=1760 (first row), datasheet roofline = bytes / 900 GB/s.
  const auto& first = gemm_points.front();
  CHECK(first.gpu == "V100");
  const double bytes = 4.0 * (1760.0 * 1760 + 1760 * 16 + 2 * 1760 * 16);
  CHECK(datasheet_prediction(first.point) ==
        doctest::Approx(std::max(2.0 * 1760 * 16 * 1760 / 15.7e12, bytes / 900e9)));
  const DeepBenchResult gemm = evaluate_deepbench(gemm_points, "gemm");
  CHECK(gemm.calibrated.mape <= threshold("deepbench_gemm_calibrated_mape"));
  CHECK(gemm.calibrated.mape < gemm.datasheet.mape);
  CHECK(gemm.leave_one_gpu_out_all.mape <= threshold("deepbench_gemm_leave_one_gpu_out_mape"));
  const DeepBenchResult conv =
      evaluate_deepbench(load_deepbench(kDir + "/measurements/deepbench", "conv", sheets), "conv");
  CHECK(conv.calibrated.mape <= threshold("deepbench_conv_calibrated_mape"));
  CHECK(conv.calibrated.mape < conv.datasheet.mape);
  // The size-aware wave model, leave one GPU out, beside the roofline's.
  CHECK(gemm.wave_leave_one_gpu_out.size() == 10);
  CHECK(gemm.wave_leave_one_gpu_out_all.mape <= threshold("deepbench_gemm_wave_leave_one_gpu_out_mape"));
  CHECK(conv.wave_leave_one_gpu_out_all.mape <= threshold("deepbench_conv_wave_leave_one_gpu_out_mape"));
  CHECK(conv.leave_one_gpu_out_all.mape <= threshold("deepbench_conv_leave_one_gpu_out_mape"));
  if (learned_models_built()) {
    const std::string dir = kDir + "/measurements/deepbench";
    const LearnedValidation learned = evaluate_learned(gemm_points, load_deepbench(dir, "conv", sheets),
                                                       load_deepbench(dir, "conv_backward", sheets), gemm);
    CHECK(learned.gemm.mape <= threshold("deepbench_gemm_learned_leave_one_gpu_out_mape"));
    CHECK(learned.conv.mape <= threshold("deepbench_conv_learned_leave_one_gpu_out_mape"));
    // A convolution's gradients, held out with their GPU: the trees beat the wave model alone on them.
    CHECK(learned.conv_data_grad.mape <=
          threshold("deepbench_conv_data_gradient_learned_leave_one_gpu_out_mape"));
    CHECK(learned.conv_weight_grad.mape <=
          threshold("deepbench_conv_weight_gradient_learned_leave_one_gpu_out_mape"));
    CHECK(learned.conv_data_grad.mape < learned.conv_data_grad_wave.mape);
    CHECK(learned.conv_weight_grad.mape < learned.conv_weight_grad_wave.mape);
  }
}

TEST_CASE("newer GPUs' published GEMMs: the wave model with each GPU's chip left out of its fit") {
  const auto sheets = load_gpu_datasheets(kDir + "/gpu_datasheets.csv");
  const auto deepbench = load_deepbench(kDir + "/measurements/deepbench", "gemm", sheets);
  const auto published = load_published_gemms(kDir + "/measurements/neusight");
  const PublishedWaveLogo logo = published_wave_leave_one_chip_out(deepbench, published);
  CHECK(logo.by_gpu.size() == 8);
  CHECK(logo.all.count == 21715);
  CHECK(logo.all.mape <= threshold("published_gemm_wave_chip_out_mape"));
  // The GPUs the presets name: an A100 PCIe and an H100 within the figures of DeepBench's own GPUs left out.
  CHECK(logo.by_gpu.at("A100-PCIe-40GB").mape <= threshold("published_gemm_wave_chip_out_mape"));
  CHECK(logo.by_gpu.at("H100-SXM5-80GB").mape <= threshold("published_gemm_wave_chip_out_mape"));
  // Each board on its own: the shared parameters refitted on two thirds of its points, scored on the rest.
  std::vector<WavePoint> sample;
  for (const DeepBenchPoint* p : wave_fit_sample(deepbench, published))
    sample.push_back(wave_point(*p));
  const PublishedBoards boards = fit_published_boards(published, fit_wave(sample));
  CHECK(boards.all.count == 7239);
  CHECK(boards.all.mape <= threshold("published_gemm_own_board_mape"));
  CHECK(boards.all.mape < logo.all.mape);
}

TEST_CASE("the executor's time per op comes from the other graphs' one-thread runs, never the graph's own") {
  // Three graphs on one thread, 2 ops each, whose makespans exceed their ops' times by 10, 20 and 60 us
  // per op; a two-thread run of graph 1 and a one-thread run of a graph whose ops outlast its makespan.
  const auto run = [](std::uint64_t seed, int threads, double p50, std::vector<double> ops) {
    ExecutionRecord r;
    r.seed = seed;
    r.threads = threads;
    r.p50 = p50;
    r.op_seconds = std::move(ops);
    return r;
  };
  ExecutionSet s;
  s.records = {run(1, 1, 1e-3 + 20e-6, {0.5e-3, 0.5e-3}), run(2, 1, 2e-3 + 40e-6, {1e-3, 1e-3}),
               run(3, 1, 1e-3 + 120e-6, {0.4e-3, 0.6e-3}), run(1, 2, 0.6e-3, {0.5e-3, 0.5e-3}),
               run(4, 1, 0.9e-3, {0.5e-3, 0.5e-3})};
  const auto overhead = executor_overhead_per_op(s);
  CHECK(overhead.at(1) == doctest::Approx((20e-6 + 60e-6 + 0.0) / 3)); // graphs 2, 3 and 4 (clamped to 0)
  CHECK(overhead.at(2) == doctest::Approx((10e-6 + 60e-6 + 0.0) / 3));
  CHECK(overhead.at(3) == doctest::Approx((10e-6 + 20e-6 + 0.0) / 3));
  CHECK(overhead.at(4) == doctest::Approx((10e-6 + 20e-6 + 60e-6) / 3));
  // For `run`, all four graphs' own: the mean a written calibration adds to its launch overhead.
  const ExecutorOverhead all = executor_overhead_all_graphs(s);
  CHECK(all.graphs == 4);
  CHECK(all.seconds_per_op == doctest::Approx((10e-6 + 20e-6 + 60e-6 + 0.0) / 4));
}

TEST_CASE("heterosim validate on the committed sets is deterministic and refuses to overwrite") {
  std::string name = "hs-validate-";
  name += std::to_string(::getpid());
  const fs::path out = fs::temp_directory_path() / name;
  fs::remove_all(out);
  REQUIRE(run("validate --quiet --out " + (out / "a").string()) == 0);
  REQUIRE(run("validate --quiet --out " + (out / "b").string()) == 0);
  std::vector<std::string> files = {"report.json", "report.txt", "calibration-cpu.json",
                                    "calibration-deepbench-gemm-V100.json", "this-cpu-2t.json"};
  if (learned_models_built()) files.push_back("learned-deepbench.json");
  const std::vector<std::string> torch = {"torch-framework-model.json", "calibration-torch-1t.json",
                                          "calibration-torch-2t.json"};
  files.insert(files.end(), torch.begin(), torch.end());
  for (const auto& f : files) {
    CHECK(fs::exists(out / "a" / f));
    CHECK(slurp(out / "a" / f) == slurp(out / "b" / f));
  }
  for (const auto& f : torch) // the committed ones are what validate writes
    CHECK(slurp(out / "a" / f) == slurp(fs::path(kDir) / "platforms" / f));
  if (learned_models_built()) {
    // So is the model for any GPU that models/ ships, and `run` names it for the GPU it costs.
    const fs::path models = fs::path(kDir).parent_path() / "models";
    for (const char* f :
         {"learned-deepbench.json", "calibration-deepbench-gpu.json", "calibration-published-boards.json"})
      CHECK(slurp(out / "a" / f) == slurp(models / f));
    REQUIRE(run("run --quiet --report-only --platform workstation --workload bert-base:precision=fp32 "
                "--calibration " +
                (models / "calibration-deepbench-gpu.json").string() + " --out " +
                (out / "run-gpu").string()) == 0);
    const std::string report = slurp(out / "run-gpu" / "report.json");
    CHECK(report.find("\"gpu0\"") != std::string::npos);
    CHECK(report.find("learned (") != std::string::npos);
    CHECK(report.find("leave one GPU out") != std::string::npos);
  }
  // `run` costs a built ResNet-18 through the framework model the torch calibration names.
  CHECK(run("run --quiet --platform " + kDir +
            "/platforms/this-cpu-torch.json --workload resnet18 --calibration " +
            (out / "a" / "calibration-torch-2t.json").string() + " --out " + (out / "run-torch").string()) ==
        0);
  // A CPU calibration's launch overhead holds the executor's time per op, as the validated replays do.
  const MeasurementSet kernels = load_measurement_set(kDir + "/measurements/cpu-kernels.json");
  const double executor =
      executor_overhead_all_graphs(load_execution_set(kDir + "/measurements/cpu-executions.json"))
          .seconds_per_op;
  CHECK(executor > 10e-6);
  const Json written = Json::parse(slurp(out / "a" / "calibration-cpu.json"));
  CHECK(written["entries"][0]["launch_overhead"].get<double>() ==
        doctest::Approx(validate_cpu_kernels(kernels, 1).fit.launch_overhead + executor).epsilon(1e-12));
  CHECK(run("validate --quiet --out " + (out / "a").string()) != 0); // exists, no --force
  CHECK(run("validate --quiet --cpu /nonexistent.json --out " + (out / "c").string()) != 0);
  // The calibration it writes is accepted by `heterosim run` on the platform it writes.
  CHECK(run("run --quiet --platform " + (out / "a" / "this-cpu-2t.json").string() +
            " --workload random:ops=20 --calibration " + (out / "a" / "calibration-cpu.json").string() +
            " --out " + (out / "run").string()) == 0);
  fs::remove_all(out);
}

TEST_CASE("validate writes the shipped GPU model in one run when the committed one does not load") {
  if (!learned_models_built()) return;
  // A data directory like the committed one, whose learned model is of an older format, as after a change
  // to the model's features: validate skips the committed model's check, says why, and writes the new one.
  const fs::path root = fs::path(kDir).parent_path();
  const fs::path data = fs::temp_directory_path() / ("hs-stale-model-" + std::to_string(::getpid()));
  fs::remove_all(data);
  fs::create_directories(data / "models");
  for (const char* dir : {"platforms", "validation"})
    fs::create_directory_symlink(root / dir, data / dir);
  for (const auto& f : fs::directory_iterator(root / "models"))
    fs::copy_file(f.path(), data / "models" / f.path().filename());
  std::string stale = slurp(root / "models" / "learned-deepbench.json");
  const auto version = stale.find("\"version\": 6");
  REQUIRE(version != std::string::npos);
  stale.replace(version, 12, "\"version\": 5");
  std::ofstream(data / "models" / "learned-deepbench.json", std::ios::binary) << stale;
  ::setenv("HETEROSIM_DATA", data.c_str(), 1);
  const int rc =
      run("validate --quiet --executions none --torch-models none --out " + (data / "out").string());
  ::unsetenv("HETEROSIM_DATA");
  CHECK(rc == 0);
  const std::string report = slurp(data / "out" / "report.txt");
  CHECK(report.find("The shipped GPU model is not checked") != std::string::npos);
  CHECK(report.find("version 5 models were trained on features") != std::string::npos);
  for (const char* f :
       {"learned-deepbench.json", "calibration-deepbench-gpu.json", "calibration-published-boards.json"})
    CHECK(slurp(data / "out" / f) == slurp(root / "models" / f));
  fs::remove_all(data);
}

TEST_CASE(
    "whole PyTorch models predicted from calibrations that excluded them stay within the recorded error") {
  const std::string dir = kDir + "/measurements/torch/";
  const MeasurementSet kernels = load_measurement_set(dir + "kernels.json");
  const TorchRunSet runs = load_torch_runs(dir + "models.json");
  const TorchValidation v = validate_torch(kernels, "kernels.json", runs, "models.json");
  REQUIRE(v.rows.size() == 10); // ResNet-18 and ResNet-50 at batch 1 and 8, BERT-base; 1 and 2 threads
  for (const auto& row : v.rows) {
    CAPTURE(row.model);
    CAPTURE(row.threads);
    CHECK(std::fabs(percent_error(row.predicted, row.measured)) <= threshold("torch_end_to_end_worst"));
    CHECK(row.unmodelled_seconds == 0.0);
    CHECK(row.op_truth == "profiler trace");
  }
  // The trace shows the dispatch the model has to learn: at one thread and batch 1, ResNet-50's 1x1
  // convolutions take the native path, and at two threads every convolution goes to oneDNN.
  for (const auto& row : v.rows)
    if (row.model == "resnet50") {
      const auto paths = row.library_paths;
      const auto count = [&](const std::string& p) { return paths.count(p) ? paths.at(p) : 0; };
      if (row.threads == 1) CHECK(count("conv2d via aten::thnn_conv2d") > 20);
      if (row.threads == 2) CHECK(count("conv2d via aten::mkldnn_convolution") == 53);
    }
  CHECK(v.end_to_end.max <= threshold("torch_end_to_end_worst"));
  CHECK(v.op_errors.p50 <= threshold("torch_per_op_p50"));
  // Shapes matter: one rate per op kind is far worse on the same data.
  CHECK(v.end_to_end_per_kind.mape > 3 * v.end_to_end.mape);
}
