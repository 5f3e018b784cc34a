#include "sim/learned_model.hpp"

#include "sim/gpu_architecture.hpp"
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#ifdef HS_HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

namespace hs {

namespace {

constexpr const char* kFormat = "heterosim-learned-model";
// 2 (2026-12-03): device features from the architecture, memory type and software stack, the layout of
// B, a convolution's filter window and stride; no ridge point or watts per TFLOP/s.
// 3 (2026-12-05): the precisions it was trained on.
// 4 (2026-12-05): the architectures of the GPUs it was trained on.
// 5 (2026-12-06): a convolution's pass (forward, data gradient, weight gradient) as a feature. Earlier
// versions were trained without it and are refused, as their features are not this build's.
// 6 (2026-12-06): published and measured kernels, and workload ops, as the BLAS calls they are
// (blas_gemm: nn.Linear is "TN" with m its output features), where they had been taken in row-major
// order, so that their shapes and layouts meant what DeepBench's do.
constexpr int kVersion = 6;

#ifdef HS_HAVE_XGBOOST
// XGBoost keeps a thread's prediction caches in thread-local storage, which the main thread's exit destroys
// before the process's static objects. A booster held by a static object (a platform a program keeps for its
// whole life, whose calibration names the learned model) and freed after that would free into storage that
// is gone (AddressSanitizer: heap-use-after-free in ~LearnerImpl). So once the main thread's thread-locals
// are destroyed, boosters are left to the process's end.
const std::thread::id g_main_thread = std::this_thread::get_id();
std::atomic<bool> g_main_thread_exited{false};

struct MainThreadExitWatch {
  MainThreadExitWatch() = default;
  MainThreadExitWatch(const MainThreadExitWatch&) = delete;
  MainThreadExitWatch& operator=(const MainThreadExitWatch&) = delete;
  ~MainThreadExitWatch() {
    if (std::this_thread::get_id() == g_main_thread) g_main_thread_exited = true;
  }
};

// Called before XGBoost's own thread-locals are made, so its watch is destroyed after them.
void watch_thread_exit() {
  thread_local MainThreadExitWatch watch;
  static_cast<void>(&watch);
}
#endif

float log2f_of(double v) {
  return static_cast<float>(std::log2(std::max(v, 1e-30)));
}

Json wave_json(const WaveParams& w) {
  return {{"peak_efficiency", w.peak_efficiency},     {"tile_intensity_knee", w.tile_intensity_knee},
          {"memory_efficiency", w.memory_efficiency}, {"launch_overhead", w.launch_seconds},
          {"watts_per_tflops", w.watts_per_tflops},   {"transposed_a_efficiency", w.transposed_a_efficiency},
          {"tile_k_overhead", w.tile_k_overhead}};
}

WaveParams wave_of(const JsonNode& n) {
  WaveParams w;
  w.peak_efficiency = n.at("peak_efficiency").as_number();
  w.tile_intensity_knee = n.at("tile_intensity_knee").as_number();
  w.memory_efficiency = n.at("memory_efficiency").as_number();
  w.launch_seconds = n.at("launch_overhead").as_number();
  w.watts_per_tflops = n.at("watts_per_tflops").as_number();
  w.transposed_a_efficiency = n.at("transposed_a_efficiency").as_number();
  w.tile_k_overhead = n.at("tile_k_overhead").as_number();
  return w;
}

#ifdef HS_HAVE_XGBOOST
void check(int rc, const std::string& what) {
  if (rc != 0) throw InputError(what, "xgboost", XGBGetLastError());
}
#endif

} // namespace

bool learned_models_built() {
#ifdef HS_HAVE_XGBOOST
  return true;
#else
  return false;
#endif
}

const std::vector<std::string>& learned_feature_names() {
  static const std::vector<std::string> names = {"log2_m",
                                                 "log2_n",
                                                 "log2_k",
                                                 "log2_flops",
                                                 "log2_bytes",
                                                 "log2_intensity",
                                                 "element_bytes",
                                                 "convolution",
                                                 "transposed_a",
                                                 "log2_tiles_per_unit",
                                                 "last_wave_fill",
                                                 "log2_wave_seconds",
                                                 "transposed_b",
                                                 "vendor_amd",
                                                 "architecture_generation",
                                                 "hbm",
                                                 "driver_version",
                                                 "runtime_version",
                                                 "dnn_version",
                                                 "conv_window",
                                                 "conv_stride",
                                                 "conv_pass"};
  return names;
}

std::vector<float> learned_features(const GemmShape& s, const WaveDevice& d, bool convolution,
                                    const WaveParams& wave) {
  const double flops = 2 * s.m * s.n * s.k * s.batch;
  const double bytes = s.element_bytes * s.batch * (s.m * s.k + s.k * s.n + 2 * s.m * s.n);
  const double tiles = std::ceil(s.m / 128) * std::ceil(s.n / 128) * s.batch;
  const double units = std::max(1, d.units);
  const double fill = std::fmod(tiles, units) / units;
  const ArchitectureTraits arch = architecture_traits(d.architecture);
  const float nan = std::nanf("");
  return {log2f_of(s.m),
          log2f_of(s.n),
          log2f_of(s.k),
          log2f_of(flops),
          log2f_of(bytes),
          log2f_of(flops / bytes),
          static_cast<float>(s.element_bytes),
          convolution ? 1.0f : 0.0f,
          s.transposed_a ? 1.0f : 0.0f,
          log2f_of(tiles / units),
          static_cast<float>(fill),
          log2f_of(gemm_wave_time(s, d, wave).seconds),
          s.transposed_b ? 1.0f : 0.0f,
          arch.known ? (arch.amd ? 1.0f : 0.0f) : nan,
          arch.known ? static_cast<float>(arch.generation) : nan,
          d.memory_type.empty() ? nan : (d.memory_type.rfind("HBM", 0) == 0 ? 1.0f : 0.0f),
          d.driver_version > 0 ? static_cast<float>(d.driver_version) : nan,
          d.runtime_version > 0 ? static_cast<float>(d.runtime_version) : nan,
          d.dnn_version > 0 ? static_cast<float>(d.dnn_version) : nan,
          s.window > 0 ? static_cast<float>(s.window) : nan,
          s.stride > 0 ? static_cast<float>(s.stride) : nan,
          static_cast<float>(s.conv_pass)};
}

LearnedModel::LearnedModel(const std::string& booster_json, const WaveParams& wave, std::string source,
                           std::vector<std::string> precisions, std::vector<std::string> architectures,
                           const std::string& gradient_booster_json, std::vector<std::string> boards)
    : wave_(wave), source_(std::move(source)), precisions_(std::move(precisions)),
      architectures_(std::move(architectures)), boards_(std::move(boards)) {
#ifdef HS_HAVE_XGBOOST
  watch_thread_exit();
  forward_ = load_booster(booster_json);
  if (!gradient_booster_json.empty()) gradient_ = load_booster(gradient_booster_json);
#else
  (void)booster_json;
  (void)gradient_booster_json;
  throw InputError(source_, "",
                   "this build has no XGBoost (install libxgboost-dev and re-run cmake), so it "
                   "cannot use a learned cost model");
#endif
}

LearnedModel::Booster LearnedModel::load_booster(const std::string& json) const {
  Booster b;
  b.json = json;
#ifdef HS_HAVE_XGBOOST
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), source_);
  b.handle = std::shared_ptr<void>(h, [](void* p) {
    if (!g_main_thread_exited) XGBoosterFree(p);
  });
  check(XGBoosterLoadModelFromBuffer(h, b.json.data(), b.json.size()), source_);
  check(XGBoosterSetParam(h, "nthread", "1"), source_);
#endif
  return b;
}

LearnedModel LearnedModel::load(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  root.expect_only({"format", "version", "features", "precisions", "architectures", "wave_model", "source",
                    "booster", "gradient_booster", "boards"});
  if (root.at("format").as_string() != kFormat)
    root.at("format").fail(std::string("expected format \"") + kFormat + "\"");
  const auto version = root.at("version").as_integer(1, 1000);
  if (version < kVersion)
    root.at("version").fail(
        "version " + std::to_string(version) +
        " models were trained on features this build no longer computes (it reads version " +
        std::to_string(kVersion) + "); retrain with `heterosim validate`");
  if (version > kVersion)
    root.at("version").fail("unsupported version (this build reads " + std::to_string(kVersion) + ")");
  if (root.at("features").as_string_list() != learned_feature_names())
    root.at("features").fail("the model was trained on other features than this build computes");
  std::vector<std::string> precisions = root.at("precisions").as_string_list();
  if (precisions.empty()) root.at("precisions").fail("names no precision");
  // Absent (GPUs whose architecture was not given): the trees apply to any device.
  std::vector<std::string> architectures;
  if (const auto list = root.find("architectures")) {
    architectures = list->as_string_list();
    if (architectures.empty()) list->fail("names no architecture (leave it out when none is known)");
    for (const auto& a : architectures)
      if (!architecture_traits(a).known) list->fail("unknown architecture '" + a + "'");
  }
  std::vector<std::string> boards;
  if (const auto list = root.find("boards")) {
    boards = list->as_string_list();
    for (const auto& b : boards)
      if (b.empty()) list->fail("a board's model string is empty");
  }
  const auto gradient = root.find("gradient_booster");
  return LearnedModel(root.at("booster").raw().dump(), wave_of(root.at("wave_model")),
                      root.string_or("source", path), std::move(precisions), std::move(architectures),
                      gradient ? gradient->raw().dump() : "", std::move(boards));
}

namespace {

// The stack fields a device of `amd`'s vendor must give, as every training GPU of that vendor did.
std::string missing_stack(const WaveDevice& d, bool amd) {
  std::vector<std::string> missing;
  if (!amd && !(d.driver_version > 0)) missing.emplace_back("driver_version");
  if (!(d.runtime_version > 0)) missing.emplace_back("runtime_version");
  if (!(d.dnn_version > 0)) missing.emplace_back("dnn_version");
  if (missing.empty()) return "";
  return "the device does not give its software stack (compute_units." + name_list(missing) +
         "), which the trees were trained with";
}

} // namespace

bool LearnedModel::trained_board(const WaveDevice& d) const {
  return !d.model.empty() && std::find(boards_.begin(), boards_.end(), d.model) != boards_.end();
}

std::string LearnedModel::untrained_reason(const WaveDevice& d) const {
  const std::string& architecture = d.architecture;
  if (architectures_.empty() || trained_board(d)) return "";
  const ArchitectureTraits device = architecture_traits(architecture);
  if (!device.known)
    return architecture.empty() ? "the device does not give its architecture (compute_units.architecture)"
                                : "architecture '" + architecture + "' is not one HeteroSim knows";
  int oldest = 1000, newest = -1;
  for (const auto& a : architectures_)
    if (const ArchitectureTraits t = architecture_traits(a); t.amd == device.amd) {
      oldest = std::min(oldest, t.position);
      newest = std::max(newest, t.position);
    }
  if (oldest > newest) return "it was trained on no " + std::string(device.amd ? "AMD" : "NVIDIA") + " GPU";
  // One architecture beyond what the trees saw, they still help: leaving out DeepBench's only Turing GPU
  // (T4), trees trained up to Volta put its GEMMs at 17.1 % against the wave model's 20.6 %.
  const std::string trained = " than the " + name_list(architectures_) + " GPUs it was trained on";
  if (device.position > newest + 1) return architecture + " is more than one architecture newer" + trained;
  if (device.position < oldest - 1) return architecture + " is more than one architecture older" + trained;
  return missing_stack(d, device.amd);
}

bool LearnedModel::covers(const std::string& precision) const {
  return std::find(precisions_.begin(), precisions_.end(), precision) != precisions_.end();
}

std::string LearnedModel::file_text() const {
  Json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["source"] = source_;
  j["features"] = learned_feature_names();
  j["precisions"] = precisions_;
  if (!architectures_.empty()) j["architectures"] = architectures_;
  if (!boards_.empty()) j["boards"] = boards_;
  j["wave_model"] = wave_json(wave_);
  // The header indented for a reader, the booster (megabytes of trees) on one line: indenting it would more
  // than double the file.
  std::string text = j.dump(1);
  text.resize(text.size() - 2); // "\n}"
  text.append(",\n \"booster\": ").append(Json::parse(forward_.json).dump());
  if (!gradient_.json.empty())
    text.append(",\n \"gradient_booster\": ").append(Json::parse(gradient_.json).dump());
  return text.append("\n}\n");
}

std::vector<double> LearnedModel::log_ratios(const std::vector<std::vector<float>>& rows) const {
  // The pass is the last feature: the rows of a convolution's gradients go to their own trees.
  std::vector<std::vector<float>> of[2];
  std::vector<int> which;
  for (const auto& r : rows) {
    which.push_back(r.back() != 0 ? 1 : 0);
    of[which.back()].push_back(r);
  }
  const std::vector<double> predicted[2] = {predict(forward_, of[0]), predict(gradient_, of[1])};
  std::vector<double> out;
  std::size_t next[2] = {0, 0};
  for (const int w : which)
    out.push_back(predicted[w].at(next[w]++));
  return out;
}

std::vector<double> LearnedModel::predict(const Booster& b,
                                          const std::vector<std::vector<float>>& rows) const {
  std::vector<double> out;
#ifdef HS_HAVE_XGBOOST
  if (rows.empty()) return out;
  if (!b.handle)
    throw InputError(source_, "gradient_booster", "the model has no trees for a convolution's gradients");
  const std::size_t cols = learned_feature_names().size();
  std::vector<float> flat;
  for (const auto& r : rows)
    flat.insert(flat.end(), r.begin(), r.end());
  DMatrixHandle m = nullptr;
  check(XGDMatrixCreateFromMat(flat.data(), rows.size(), cols, std::nanf(""), &m), source_);
  bst_ulong n = 0;
  const float* result = nullptr;
  const int rc = XGBoosterPredict(b.handle.get(), m, 0, 0, 0, &n, &result);
  if (rc == 0) out.assign(result, result + n);
  XGDMatrixFree(m);
  check(rc, source_);
#else
  (void)b;
  (void)rows;
#endif
  return out;
}

bool LearnedModel::trees_apply(const GemmShape& s, const WaveDevice& d) const {
  return (s.conv_pass == 0 || has_gradient_trees()) && untrained_reason(d).empty();
}

double LearnedModel::seconds(const GemmShape& s, const WaveDevice& d, bool convolution) const {
  const double base = gemm_wave_time(s, d, wave_).seconds;
  if (!trees_apply(s, d)) return base;
  const auto r = log_ratios({features(s, d, convolution)});
  return r.empty() ? base : base * std::exp(r.front());
}

std::vector<float> LearnedModel::features(const GemmShape& s, const WaveDevice& d, bool convolution) const {
  if (!trained_board(d)) return learned_features(s, d, convolution, wave_);
  WaveDevice as_trained = d;
  as_trained.driver_version = as_trained.runtime_version = as_trained.dnn_version = 0;
  return learned_features(s, as_trained, convolution, wave_);
}

} // namespace hs
