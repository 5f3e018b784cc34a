#include "validation/learned_fit.hpp"

#include "sim/error.hpp"
#include "sim/gpu_architecture.hpp"
#include "validation/measurement_set.hpp"

#include <algorithm>
#include <cmath>

#ifdef HS_HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

namespace hs::validation {

namespace {

#ifdef HS_HAVE_XGBOOST
void check(int rc) {
  if (rc != 0) throw InputError("xgboost", "training", XGBGetLastError());
}

// Trains and returns the booster as XGBoost JSON text.
std::string boost(const std::vector<float>& flat, const std::vector<float>& labels, std::size_t cols) {
  DMatrixHandle m = nullptr;
  check(XGDMatrixCreateFromMat(flat.data(), labels.size(), cols, std::nanf(""), &m));
  check(XGDMatrixSetFloatInfo(m, "label", labels.data(), labels.size()));
  BoosterHandle b = nullptr;
  check(XGBoosterCreate(&m, 1, &b));
  // Shrinkage, and trees of depth 8: the residual depends on interactions of shape, layout and software
  // stack (leave one GPU out, depth 4: GEMM 19.7 %, conv 18.4 %; 6: 17.4 %, 16.2 %; 8: 16.5 %, 16.1 %;
  // 10: 16.4 %, 16.3 %).
  for (const auto& [key, value] :
       std::vector<std::pair<const char*, const char*>>{{"objective", "reg:squarederror"},
                                                        {"max_depth", "8"},
                                                        {"eta", "0.05"},
                                                        {"subsample", "1"},
                                                        {"min_child_weight", "5"},
                                                        {"lambda", "1"},
                                                        {"seed", "0"},
                                                        {"nthread", "1"},
                                                        {"tree_method", "exact"}})
    check(XGBoosterSetParam(b, key, value));
  for (int round = 0; round < 300; ++round)
    check(XGBoosterUpdateOneIter(b, round, m));
  bst_ulong len = 0;
  const char* text = nullptr;
  check(XGBoosterSaveModelToBuffer(b, R"({"format": "json"})", &len, &text));
  std::string out(text, len);
  XGBoosterFree(b);
  XGDMatrixFree(m);
  return out;
}
#endif

// `hide_stack`: as if the GPU did not give its software stack.
std::vector<float> features_of(const DeepBenchPoint& p, const WaveParams& wave, bool hide_stack = false) {
  WaveDevice device = p.device;
  if (hide_stack) device.driver_version = device.runtime_version = device.dnn_version = 0;
  return learned_features(p.shape, device, p.point.kind == "conv2d", wave);
}

// `hide_stack`: the test GPU's software stack hidden from the trees, which then apply whatever it gives.
void add_errors(const std::vector<const DeepBenchPoint*>& test, const LearnedModel& model,
                std::vector<double>& errors, bool hide_stack = false) {
  std::vector<std::vector<float>> rows;
  for (const auto* p : test)
    rows.push_back(features_of(*p, model.wave(), hide_stack));
  const std::vector<double> r = model.log_ratios(rows);
  for (std::size_t i = 0; i < test.size(); ++i) {
    const double base = gemm_wave_time(test[i]->shape, test[i]->device, model.wave()).seconds;
    // As a run would cost it: by the wave model alone where the trees do not apply to the GPU.
    const bool trees = hide_stack || model.untrained_reason(test[i]->device).empty();
    errors.push_back(percent_error(trees ? base * std::exp(r.at(i)) : base, test[i]->point.seconds));
  }
}

// The points of `test` of one convolution pass, by the trees and by their base, the wave model alone.
void add_pass_errors(const std::vector<const DeepBenchPoint*>& test, const LearnedModel& model, int pass,
                     std::vector<double>& trees, std::vector<double>& wave) {
  std::vector<const DeepBenchPoint*> of_pass;
  for (const auto* p : test)
    if (p->shape.conv_pass == pass) of_pass.push_back(p);
  add_errors(of_pass, model, trees);
  for (const auto* p : of_pass)
    wave.push_back(
        percent_error(gemm_wave_time(p->shape, p->device, model.wave()).seconds, p->point.seconds));
}

// The values of `field` over the points, in order of first appearance.
template <class Field>
std::vector<std::string> distinct(const std::vector<const DeepBenchPoint*>& points, Field field) {
  std::vector<std::string> out;
  for (const auto* p : points)
    if (std::find(out.begin(), out.end(), field(*p)) == out.end()) out.push_back(field(*p));
  return out;
}

std::vector<std::string> precisions_of(const std::vector<const DeepBenchPoint*>& points) {
  return distinct(points, [](const DeepBenchPoint& p) { return p.precision; });
}

// Those known (sim/gpu_architecture.hpp); none when a GPU's is not: the trees then apply to any device.
std::vector<std::string> architectures_of(const std::vector<const DeepBenchPoint*>& points) {
  auto names = distinct(points, [](const DeepBenchPoint& p) { return p.device.architecture; });
  const bool all_known = std::all_of(names.begin(), names.end(),
                                     [](const std::string& a) { return architecture_traits(a).known; });
  return all_known ? names : std::vector<std::string>{};
}

// `errors` (signed percent) with their median ratio taken out; returns that median as a signed percent.
double take_out_constant(std::vector<double>& errors) {
  std::vector<double> logs;
  for (const double e : errors)
    logs.push_back(std::log1p(e / 100));
  std::vector<double> sorted = logs;
  const double median = percentile(sorted, 0.5);
  for (std::size_t i = 0; i < errors.size(); ++i)
    errors[i] = std::expm1(logs[i] - median) * 100;
  return std::expm1(median) * 100;
}

// Adds `errors` with their GPU's constant taken out to `all`, and the constant to `by_gpu`.
void add_constant_out(std::vector<double> errors, const std::string& gpu, std::vector<double>& all,
                      std::map<std::string, double>& by_gpu) {
  if (errors.empty()) return;
  by_gpu[gpu] = take_out_constant(errors);
  all.insert(all.end(), errors.begin(), errors.end());
}

struct Fold {
  std::vector<const DeepBenchPoint*> train, test_gemm, test_conv, test_conv_backward;
};

// The fp32 points split for `gpu`: unseen, every point of the GPU is tested and none trains; seen, its
// training problems (all but every third, as the per-GPU fits use) train beside the other GPUs' and its
// held-out third is tested.
Fold fold(const std::vector<const std::vector<DeepBenchPoint>*>& sets, const std::string& gpu, bool seen) {
  Fold f;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (const auto& p : *sets[s]) {
      if (p.precision != "fp32") continue;
      if (p.gpu != gpu || (seen && !held_out(p.index)))
        f.train.push_back(&p);
      else
        (s == 0 ? f.test_gemm : s == 1 ? f.test_conv : f.test_conv_backward).push_back(&p);
    }
  return f;
}

} // namespace

double published_kernel_seconds(const DeepBenchPoint& p, const PublishedTraining& published) {
  const auto ov = published.timing_overhead.find(p.gpu);
  const double overhead = ov == published.timing_overhead.end() ? 0.0 : ov->second;
  return std::max(p.point.seconds - overhead, 0.25 * p.point.seconds);
}

LearnedModel train_learned(const std::vector<const DeepBenchPoint*>& points, const WaveParams& wave,
                           const std::string& source, const PublishedTraining& published) {
#ifdef HS_HAVE_XGBOOST
  // The forward trees on GEMMs and forward convolutions, the gradients' on the gradients alone.
  std::vector<float> flat[2], labels[2];
  const auto add = [&](const DeepBenchPoint& p, bool hide_stack, double seconds) {
    const int set = p.shape.conv_pass != 0 ? 1 : 0;
    const std::vector<float> f = features_of(p, wave, hide_stack);
    flat[set].insert(flat[set].end(), f.begin(), f.end());
    labels[set].push_back(
        static_cast<float>(std::log(seconds / gemm_wave_time(p.shape, p.device, wave).seconds)));
  };
  for (const auto* p : points)
    add(*p, false, p->point.seconds);
  std::vector<std::string> boards;
  for (const auto* p : published.points) {
    add(*p, true, published_kernel_seconds(*p, published));
    if (!p->device.model.empty() && std::find(boards.begin(), boards.end(), p->device.model) == boards.end())
      boards.push_back(p->device.model);
  }
  const std::size_t cols = learned_feature_names().size();
  return LearnedModel(boost(flat[0], labels[0], cols), wave, source, precisions_of(points),
                      architectures_of(points), labels[1].empty() ? "" : boost(flat[1], labels[1], cols),
                      boards);
#else
  (void)published;
  return LearnedModel("", wave, source, precisions_of(points), architectures_of(points)); // throws
#endif
}

LearnedValidation evaluate_learned(const std::vector<DeepBenchPoint>& gemm_points,
                                   const std::vector<DeepBenchPoint>& conv_points,
                                   const std::vector<DeepBenchPoint>& conv_backward_points,
                                   const DeepBenchResult& gemm) {
  LearnedValidation v;
  std::vector<double> all_gemm, all_conv;
  // The base is the wave model every GPU shares (fitted without this one), not its architecture's refit:
  // the model file carries one set of wave parameters for any GPU, and the trees see the architecture.
  std::vector<double> seen_gemm, seen_conv, hidden_gemm, hidden_conv;
  std::vector<double> data_grad, weight_grad, data_grad_wave, weight_grad_wave;
  std::vector<double> gemm_constant_out, conv_constant_out;
  const std::vector<const std::vector<DeepBenchPoint>*> sets = {&gemm_points, &conv_points,
                                                                &conv_backward_points};
  for (const auto& [gpu, wave] : gemm.wave_fit_shared_without) {
    const Fold unseen = fold(sets, gpu, false);
    const LearnedModel model = train_learned(unseen.train, wave, "leave out " + gpu);
    std::vector<double> eg, ec;
    add_errors(unseen.test_gemm, model, eg);
    add_errors(unseen.test_conv, model, ec);
    add_errors(unseen.test_gemm, model, hidden_gemm, true);
    add_errors(unseen.test_conv, model, hidden_conv, true);
    for (const int pass : {1, 2}) {
      std::vector<double> trees, base;
      add_pass_errors(unseen.test_conv_backward, model, pass, trees, base);
      if (trees.empty()) continue;
      (pass == 1 ? v.conv_data_grad_by_gpu : v.conv_weight_grad_by_gpu)[gpu] = summarize(trees);
      auto& all = pass == 1 ? data_grad : weight_grad;
      auto& all_base = pass == 1 ? data_grad_wave : weight_grad_wave;
      all.insert(all.end(), trees.begin(), trees.end());
      all_base.insert(all_base.end(), base.begin(), base.end());
    }
    add_constant_out(eg, gpu, gemm_constant_out, v.gemm_constant_by_gpu);
    add_constant_out(ec, gpu, conv_constant_out, v.conv_constant_by_gpu);
    v.gemm_by_gpu[gpu] = summarize(eg);
    v.conv_by_gpu[gpu] = summarize(ec);
    all_gemm.insert(all_gemm.end(), eg.begin(), eg.end());
    all_conv.insert(all_conv.end(), ec.begin(), ec.end());
    const Fold seen = fold(sets, gpu, true);
    const LearnedModel seen_model = train_learned(seen.train, wave, "seen " + gpu);
    add_errors(seen.test_gemm, seen_model, seen_gemm);
    add_errors(seen.test_conv, seen_model, seen_conv);
  }
  v.gemm = summarize(all_gemm);
  v.conv = summarize(all_conv);
  v.gemm_seen = summarize(seen_gemm);
  v.conv_seen = summarize(seen_conv);
  v.gemm_stack_hidden = summarize(hidden_gemm);
  v.conv_stack_hidden = summarize(hidden_conv);
  v.conv_data_grad = summarize(data_grad);
  v.conv_weight_grad = summarize(weight_grad);
  v.conv_data_grad_wave = summarize(data_grad_wave);
  v.conv_weight_grad_wave = summarize(weight_grad_wave);
  v.gemm_constant_out = summarize(gemm_constant_out);
  v.conv_constant_out = summarize(conv_constant_out);
  return v;
}

} // namespace hs::validation
