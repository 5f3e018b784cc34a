#pragma once
// A learned GEMM cost model: gradient-boosted trees (XGBoost, Debian's libxgboost-dev) that predict how far
// a kernel's time is from the wave model's (sim/wave_model.hpp), from features of the op (shape, FLOPs,
// bytes, intensity, precision, layout of A and B, a convolution's filter window, stride and pass) and of the
// device (its tiles per SM, the wave model's own prediction, which carries peak, bandwidth, SMs and clock,
// and what several GPUs share: vendor, architecture generation, HBM or not, and the software stack: driver,
// CUDA/ROCm runtime and cuDNN/MIOpen versions), as in TVM's learned cost model. Device figures that differ on
// every GPU make the trees recognise the GPUs they were trained on: absolute ones (peak, bandwidth, SMs,
// clock, watts) made leave-one-GPU-out worse (DeepBench GEMM 28.5 % against 26.8 %), and so did the ratios
// peak / bandwidth and watts per peak TFLOP/s (GEMM 25.7 % with them, 16.5 % without, 2026-12-03), so neither
// is a feature. The software stack is what sets the host and driver's cost per call (DeepBench's m=512 n=32
// k=512 GEMM takes 6-11 us under driver 375 and CUDA 8.0.88, 50-93 us under drivers 352-367 with cuDNN 5).
// Learning the residual of an analytic model rather than the time itself keeps a GPU the trees never saw
// anchored to its datasheet figures. Without XGBoost the build still reads the files' headers and refuses to
// use them, saying why.
//
// Trees do not extrapolate: on a GPU of an architecture newer or older than any they were trained on, the
// leaves they fall into are those of the nearest GPUs they saw, whose software and kernels it does not share.
// The DeepBench model (Maxwell to Turing) put BERT-large's fp32 GEMMs on an H100 (Hopper, three architectures
// on) at 21-29 TFLOP/s and on an L4 (Ada, two on) at 4.3-7.3, where issue 10's measurement says 33-39 and
// 5.5-8, and the wave model alone says 33-42 and 5.8-8.6; one architecture on, leave one GPU out shows the
// trees still help (T4). So a device more than one architecture newer or older than those it was trained
// on, per vendor, or whose architecture is not given, is costed by the wave model alone (`untrained_reason`
// says why), and leave one GPU out applies the same rule to the GPU it leaves out.
//
// So is a device that does not give its software stack (compute_units: driver_version for NVIDIA,
// runtime_version and dnn_version), the features every training GPU of its vendor had: the trees never
// learned what an NVIDIA GPU without a driver version costs, and send it down the branches of the AMD GPUs,
// which gave none. Leave one GPU out with the left-out GPU's stack hidden and the trees applied anyway:
// GEMM 31.0 %, conv 20.4 % (P95 122 %), against 16.4 and 15.5 % with it and 28.6 and 30.3 % for the shared
// wave model; training every row twice, with and without its stack, brought the hidden case to 20.8 / 16.0 %
// but the known one to 18.2 / 16.0 %, and its worst GEMM 6.8 times too slow (2026-12-05).
//
// A board the trees were trained on by name (`boards`: the model strings of published boards whose kernels
// were in the training set, with their software stack hidden, as a platform's preset gives none) is costed
// by the trees whatever its architecture and stack: they learned that board itself. Held out on a third of
// each published board's GEMMs, that was 6.5 % against 13.3 % for the board's own wave fit; on a board
// whose chip they never saw, the trees were worse than the wave model alone (24.0 % against 20.5 %,
// validation/README.md), so the rule is the board's name, not its architecture.
//
// File: format "heterosim-learned-model", version 6 (earlier versions are refused: they were trained on
// published kernels in row-major order, where a shape is now the BLAS call, sim/wave_model.hpp): the
// feature names (checked on load, so a model trained on other features is refused), the precisions it was
// trained on (an op of another precision is costed by the wave model it corrects rather than by trees that
// never saw one), the architectures of the GPUs it was trained on, the boards it was trained on by name
// (optional), the wave parameters it corrects, its provenance, and the booster as XGBoost's own JSON.
#include "sim/wave_model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hs {

// Whether this build links XGBoost.
bool learned_models_built();

const std::vector<std::string>& learned_feature_names();
std::vector<float> learned_features(const GemmShape& s, const WaveDevice& d, bool convolution,
                                    const WaveParams& wave);

class LearnedModel {
public:
  // From XGBoost's JSON model text (what the trainer saved): the trees of GEMMs and forward convolutions,
  // and those of a convolution's gradients (empty: none; a gradient then has no trees); throws InputError
  // when they do not load.
  LearnedModel(const std::string& booster_json, const WaveParams& wave, std::string source,
               std::vector<std::string> precisions, std::vector<std::string> architectures,
               const std::string& gradient_booster_json = "", std::vector<std::string> boards = {});
  static LearnedModel load(const std::string& path);

  // The versioned file's text.
  std::string file_text() const;
  // log(seconds / wave seconds) for each row of features, by the trees of its pass (its conv_pass feature).
  std::vector<double> log_ratios(const std::vector<std::vector<float>>& rows) const;
  // Whether it has trees for a convolution's gradients.
  bool has_gradient_trees() const { return gradient_.handle != nullptr; }
  // Whether its trees cost `s` on `d`: they apply to the device (untrained_reason empty) and there are trees
  // for the pass.
  bool trees_apply(const GemmShape& s, const WaveDevice& d) const;
  // The trees' time where they apply (trees_apply), else the wave model's.
  double seconds(const GemmShape& s, const WaveDevice& d, bool convolution) const;
  // The features the trees see for `s` on `d`: a trained board's with its software stack hidden, as trained.
  std::vector<float> features(const GemmShape& s, const WaveDevice& d, bool convolution) const;
  // Whether `d` is one of the boards the trees were trained on by name.
  bool trained_board(const WaveDevice& d) const;
  const std::vector<std::string>& boards() const { return boards_; }
  // Why the trees do not apply to device `d` (its architecture and software stack), empty when they do.
  std::string untrained_reason(const WaveDevice& d) const;
  const std::vector<std::string>& architectures() const { return architectures_; }
  const WaveParams& wave() const { return wave_; }
  // Whether it was trained on ops of `precision`.
  bool covers(const std::string& precision) const;
  const std::vector<std::string>& precisions() const { return precisions_; }
  const std::string& source() const { return source_; }

private:
  struct Booster {
    std::shared_ptr<void> handle; // BoosterHandle; null: none
    std::string json;
  };
  Booster load_booster(const std::string& json) const;
  std::vector<double> predict(const Booster& b, const std::vector<std::vector<float>>& rows) const;

  // Two sets of trees: a gradient's residuals differ from a forward pass's (DeepBench's backward timings),
  // and training one set on both made the forward figures worse (leave one GPU out, GEMM 16.4 -> 17.6 %).
  Booster forward_, gradient_;
  WaveParams wave_;
  std::string source_;
  std::vector<std::string> precisions_;
  std::vector<std::string> architectures_; // empty: not recorded, the trees apply anywhere
  std::vector<std::string> boards_;        // model strings
};

} // namespace hs
