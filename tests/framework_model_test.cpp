// The framework cost model in the core: a calibration that names the torch-fitted model makes the core
// CostModel give validation's per-op times, the workload builders name the dimensions torch's ops have,
// and bad model files and calibrations are refused with the place named.
#include "sim/calibration.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/framework_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"
#include "sim/model_tree.hpp"
#include "sim/platform.hpp"
#include "validation/framework_cost_model.hpp"
#include "validation/torch_calibration.hpp"
#include "validation/torch_validation.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;

namespace {

const std::string kTorch = std::string(HS_SOURCE_DIR) + "/validation/measurements/torch/";
const std::string kTorchPlatform = std::string(HS_SOURCE_DIR) + "/validation/platforms/this-cpu-torch.json";

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The files validate writes from the committed torch sets, in a folder of their own.
struct CommittedTorchCalibration {
  MeasurementSet kernels = load_measurement_set(kTorch + "kernels.json");
  TorchValidation v =
      validate_torch(kernels, "kernels.json", load_torch_runs(kTorch + "models.json"), "models.json");
  std::string dir = temp_dir("torch-calibration");
  CommittedTorchCalibration() {
    for (const auto& [name, text] : torch_calibration_files(kernels, v, "torch-framework-model.json"))
      write_text(dir + "/" + name, text);
  }
};

// A graph of a run's ops that do work, one after another, named and sized as the run describes them.
Graph graph_of(const TorchRun& run) {
  GraphBuilder b(run.model);
  OpId previous = -1;
  for (std::size_t i = 0; i < run.ops.size(); ++i) {
    const KernelPoint& p = run.ops[i];
    if (p.kind == "view") continue;
    auto h = b.op(p.label + "#" + std::to_string(i));
    h.kind(p.kind == "pool" ? "pooling" : p.kind).flops(p.flops).reads(p.bytes); // "pool": the builders' name
    for (const auto& [d, value] : p.shape)
      if (d != "threads") b.mutable_op(h.id()).dims[d] = value;
    if (previous >= 0) b.handle(previous).feeds(h, 4.0);
    previous = h.id();
  }
  return std::move(b).build();
}

} // namespace

TEST_CASE("a model tree read back from JSON predicts exactly what the fitted one did") {
  std::vector<TreeSample> s;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0})
    s.push_back({{x, std::log1p(x * 1e6)}, std::log((x < 4.5 ? 1e-9 : 1e-10) * x * 1e6)});
  ModelTreeOptions o;
  o.slope_feature = 1;
  const ModelTree tree({"x", "log_flops"}, s, o);
  REQUIRE(tree.leaf_count() == 2);
  const Json j = tree.to_json();
  const ModelTree back = ModelTree::from_json(JsonNode(j, "tree.json", ""));
  for (const auto& t : s)
    CHECK(back.predict(t.features) == tree.predict(t.features));
  Json bad = j;
  bad["nodes"][0]["left"] = 0; // a node that is its own child would loop
  CHECK_THROWS_WITH_AS(ModelTree::from_json(JsonNode(bad, "tree.json", "")),
                       doctest::Contains("nodes[0].left"), InputError);
}

TEST_CASE(
    "the core cost model with the torch calibration gives validation's framework model's per-op times") {
  const CommittedTorchCalibration c;
  std::vector<std::string> inputs;
  const FrameworkCostModel fitted(torch_training_points(c.kernels, c.v.trained, "", inputs));
  const Platform platform = load_platform(kTorchPlatform);
  int compared = 0;
  for (int threads : {1, 2}) {
    const Calibration cal =
        load_calibration(c.dir + "/calibration-torch-" + std::to_string(threads) + "t.json", platform);
    REQUIRE(cal.entries.front().intra_op_threads == threads);
    for (const auto& run : c.v.trained.runs) {
      if (run.threads != threads) continue;
      const Graph g = graph_of(run);
      const CostModel model(g, platform, cal);
      std::size_t op = 0;
      for (const auto& p : run.ops) {
        if (p.kind == "view") continue;
        CAPTURE(run.model);
        CAPTURE(p.label);
        CHECK(model.op_time(static_cast<OpId>(op++), 0) ==
              doctest::Approx(fitted.predict(p, threads)).epsilon(1e-12));
        ++compared;
      }
    }
  }
  CHECK(compared > 1000);
}

TEST_CASE("the ResNet-50 builder names each op's dimensions as torch's run of ResNet-50 does") {
  const auto runs = load_torch_runs(kTorch + "models.json");
  const auto run = std::find_if(runs.runs.begin(), runs.runs.end(),
                                [](const TorchRun& r) { return r.model == "resnet50" && r.threads == 1; });
  REQUIRE(run != runs.runs.end());
  const Graph g = load_workload("resnet50");
  for (const std::string kind : {"conv2d", "batchnorm", "gemm"}) {
    std::vector<std::map<std::string, double>> built, measured;
    for (const auto& op : g.ops)
      if (op.kind == kind) {
        auto dims = op.dims;
        dims.erase("transposed_b"); // the classifier's layout, which the GPU models read; torch's CPU run
                                    // is described by its shape alone
        built.push_back(dims);
      }
    for (const auto& p : run->ops)
      if (p.kind == kind) {
        auto dims = p.shape;
        dims.erase("threads");
        dims.erase("in_graph");
        measured.push_back(dims);
      }
    CAPTURE(kind);
    CHECK(built.size() == measured.size());
    CHECK(built == measured); // in the same order too
  }
}

TEST_CASE("a framework calibration at a thread count the model was not measured at is refused") {
  const CommittedTorchCalibration c;
  const Platform platform = load_platform(kTorchPlatform);
  const auto calibration = [&](const std::string& extra) {
    const std::string path = c.dir + "/bad-calibration.json";
    write_text(path, R"({"format": "heterosim-calibration", "version": 2, "entries": [{"name": "torch",
      "applies_to": {"kinds": ["cpu"]}, "measured": "test")" +
                         extra + "}]}");
    return path;
  };
  CHECK_THROWS_WITH_AS(
      load_calibration(
          calibration(R"(, "framework_model": "torch-framework-model.json", "intra_op_threads": 4)"),
          platform),
      doctest::Contains("not measured at 4 intra-op thread(s) for every op kind (measured: 1, 2)"),
      InputError);
  CHECK_THROWS_WITH_AS(load_calibration(calibration(R"(, "intra_op_threads": 2)"), platform),
                       doctest::Contains("applies only with a framework_model"), InputError);
  CHECK_THROWS_WITH_AS(load_calibration(calibration(R"(, "framework_model": "missing.json")"), platform),
                       doctest::Contains("no such file"), InputError);
}
