// Each published board's own wave fit (validation/published_boards.hpp): it never sees the third of the
// board's points it is scored on, it moves only what describes the board (memory efficiency, launch
// overhead, the sustained clock through watts per TFLOP/s), and it recovers a board made by the model itself.
#include "cli_support.hpp"
#include "sim/learned_model.hpp"
#include "validation/published_boards.hpp"
#include "validation/published_kernels.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace hs;
using namespace hs::validation;

namespace {

std::vector<DeepBenchPoint> l4_set(const std::string& name, const std::string& rows) {
  const auto dir = test::scratch_dir("published_boards", name);
  std::ofstream(dir / "gpus.csv")
      << "gpu,fp32_tflops,fp16_tensor_tflops,memory_gbps,model,compute_units,boost_clock_mhz,power_limit_w,"
         "architecture,memory_type,source,units_source\n"
         "L4,30.3,121,300,NVIDIA L4,58,2040,72,Ada,GDDR6,datasheet,datasheet\n";
  std::ofstream(dir / "gemm.csv") << "op,gpu_model,b,m,n,k,latency_ms\n" << rows;
  return load_published_gemms(dir.string());
}

const char* kRows = "linear,NVIDIA L4,1,512,1024,1024,0.2\nlinear,NVIDIA L4,1,2048,4096,1024,2.5\n"
                    "bmm,NVIDIA L4,64,128,64,128,0.08\nlinear,NVIDIA L4,1,1024,1024,4096,1.1\n"
                    "bmm,NVIDIA L4,16,512,64,512,0.3\nlinear,NVIDIA L4,4,512,4096,1024,3.9\n";

WaveParams shared() {
  WaveParams p;
  p.peak_efficiency = 1.0;
  p.tile_intensity_knee = 4;
  p.memory_efficiency = 0.65;
  p.launch_seconds = 6e-6;
  p.watts_per_tflops = 18;
  p.transposed_a_efficiency = 0.86;
  p.tile_k_overhead = 7;
  return p;
}

} // namespace

TEST_CASE("a board's own fit never sees the third of its points it is scored on") {
  const auto points = l4_set("split", kRows);
  REQUIRE(points.size() == 6);
  auto tripled = points;
  for (auto& p : tripled)
    if (held_out(p.index)) p.point.seconds *= 3;
  const PublishedBoards a = fit_published_boards(points, shared());
  const PublishedBoards b = fit_published_boards(tripled, shared());
  const BoardFit& fa = a.by_gpu.at("L4");
  const BoardFit& fb = b.by_gpu.at("L4");
  CHECK(fa.trained == 4);
  CHECK(fa.held_out.count == 2);
  CHECK(fb.params.watts_per_tflops == fa.params.watts_per_tflops);
  CHECK(fb.params.memory_efficiency == fa.params.memory_efficiency);
  // mean(pred / (3 t) - 1) = (mean(pred / t - 1) + 1) / 3 - 1, in percent.
  CHECK(fb.held_out.mean_signed == doctest::Approx((fa.held_out.mean_signed + 100) / 3 - 100));
  CHECK(a.all.count == 2);
  CHECK(fa.held_out_by_group.size() == 2); // linear at index 4, bmm at index 1
}

TEST_CASE("a board made by the model itself, at another sustained clock, is recovered from the shared fit") {
  // Times from the wave model with the shared tile parameters but a board that holds less of its clock
  // (watts per TFLOP/s 40 against the shared 18): the refit finds the board, and leaves the tiles alone.
  WaveParams board = shared();
  board.watts_per_tflops = 40;
  std::string rows;
  for (const auto& p : l4_set("probe", kRows)) {
    const bool linear = p.label.rfind("linear", 0) == 0;
    char row[200];
    std::snprintf(row, sizeof row, "%s,NVIDIA L4,%g,%g,%g,%g,%.17g\n", linear ? "linear" : "bmm",
                  p.shape.batch, p.shape.m, p.shape.k, p.shape.n,
                  gemm_wave_time(p.shape, p.device, board).seconds * 1e3);
    rows += row;
  }
  const PublishedBoards fit = fit_published_boards(l4_set("made", rows), shared());
  const BoardFit& l4 = fit.by_gpu.at("L4");
  CHECK(l4.held_out.mape < 2.0);
  CHECK(sustained_clock_share(l4_set("made", rows).front().device, l4.params) ==
        doctest::Approx(sustained_clock_share(l4_set("made", rows).front().device, board)).epsilon(0.03));
  const auto same = [](double v) { return doctest::Approx(v).epsilon(1e-12); }; // through exp and log
  CHECK(l4.params.peak_efficiency == same(shared().peak_efficiency));
  CHECK(l4.params.tile_intensity_knee == same(shared().tile_intensity_knee));
  CHECK(l4.params.tile_k_overhead == same(shared().tile_k_overhead));
  CHECK(l4.params.transposed_a_efficiency == same(shared().transposed_a_efficiency));
}

TEST_CASE(
    "run --calibration published-boards costs a published board by its own entry, others by the shared") {
  if (!learned_models_built()) return; // the shared entry names the learned model
  const auto dir = test::scratch_dir("published_boards", "run");
  const auto l4 = test::heterosim("run --quiet --report-only --platform l4-server --workload bert-large "
                                  "--calibration published-boards --out " +
                                  (dir / "l4").string());
  REQUIRE_MESSAGE(l4.exit_code == 0, l4.output);
  const auto report = nlohmann::json::parse(test::slurp(dir / "l4" / "report.json"));
  const auto& entries = report["calibration"]["entries"];
  REQUIRE(entries.size() == 1); // the shared entry, shadowed, and the other boards calibrate nothing here
  CHECK(entries[0]["name"] == "published-L4");
  CHECK(entries[0]["devices"] == nlohmann::json::array({"gpu0"}));
  CHECK(entries[0]["gemm_model"] == "wave");
  CHECK(entries[0]["held_out_mape_percent"].get<double>() > 0);
  // A GPU NeuSight did not time (the workstation's RTX 4090) is the shared entry's.
  const auto other = test::heterosim("run --quiet --report-only --platform workstation --workload bert-base "
                                     "--calibration published-boards --out " +
                                     (dir / "ws").string());
  REQUIRE_MESSAGE(other.exit_code == 0, other.output);
  const auto ws = nlohmann::json::parse(test::slurp(dir / "ws" / "report.json"));
  REQUIRE(ws["calibration"]["entries"].size() == 1);
  CHECK(ws["calibration"]["entries"][0]["name"] == "deepbench-gpu");
}
