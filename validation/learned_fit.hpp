#pragma once
// Trains the learned cost model (sim/learned_model.hpp) on DeepBench GEMM and convolution timings, and
// measures it leave one GPU out: for each GPU, trees trained on the other GPUs' points only, correcting a
// wave model whose parameters were also fitted without that GPU.
#include "sim/learned_model.hpp"
#include "validation/deepbench.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::validation {

// Published boards' GEMMs to train on beside DeepBench's (published_kernels.hpp): timed one framework call
// at a time, so each board's fitted overhead per call (BoardFit::timing_overhead, by gpus.csv key) comes off
// its times first, and with the software stack hidden, as a platform's preset of the board gives none. The
// trees then cost those boards by name (LearnedModel::boards).
struct PublishedTraining {
  std::vector<const DeepBenchPoint*> points;
  std::map<std::string, double> timing_overhead;
};

// Deterministic: XGBoost with a fixed seed, one thread and the exact tree method.
LearnedModel train_learned(const std::vector<const DeepBenchPoint*>& points, const WaveParams& wave,
                           const std::string& source, const PublishedTraining& published = {});

// The kernel time a published timing stands for: less its board's overhead per call, but never below a
// quarter of the timing.
double published_kernel_seconds(const DeepBenchPoint& p, const PublishedTraining& published);

struct LearnedValidation {
  std::map<std::string, ErrorStats> gemm_by_gpu, conv_by_gpu; // held-out GPU's fp32 points
  ErrorStats gemm, conv;
  // A reference, not a prediction for an unseen GPU: the same trees trained with the GPU's own
  // training problems too (the other GPUs' points and two thirds of its own), scored on its held-out
  // third. What the features allow on a GPU the model has seen, so leave one GPU out cannot be expected
  // to beat it.
  ErrorStats gemm_seen, conv_seen;
  // A reference for why the trees require a device's software stack (LearnedModel::untrained_reason): the
  // leave-one-GPU-out trees applied to the left-out GPU with its driver, runtime and DNN versions hidden.
  ErrorStats gemm_stack_hidden, conv_stack_hidden;
  // A convolution's gradients (GemmShape::conv_pass 1 and 2), leave one GPU out as above, the trees trained
  // on the other GPUs' forward and backward passes; and, as the reference the trees improve on, the wave
  // model alone (the fold's base) on the same points.
  ErrorStats conv_data_grad, conv_weight_grad, conv_data_grad_wave, conv_weight_grad_wave;
  std::map<std::string, ErrorStats> conv_data_grad_by_gpu, conv_weight_grad_by_gpu; // GPUs with gradients
  // What one constant per GPU explains, an oracle rather than a prediction: the leave-one-GPU-out errors
  // with each left-out GPU's median error (its median ratio, predicted / measured) taken out, and that
  // median, as a signed percent. What is left is the error in the shapes' relative costs.
  ErrorStats gemm_constant_out, conv_constant_out;
  std::map<std::string, double> gemm_constant_by_gpu, conv_constant_by_gpu;
};

// Uses gemm.wave_fit_without (the GEMM wave fits that excluded each GPU) as each fold's base model.
// `conv_backward_points` (load_deepbench's "conv_backward") may be empty.
LearnedValidation evaluate_learned(const std::vector<DeepBenchPoint>& gemm_points,
                                   const std::vector<DeepBenchPoint>& conv_points,
                                   const std::vector<DeepBenchPoint>& conv_backward_points,
                                   const DeepBenchResult& gemm);

} // namespace hs::validation
