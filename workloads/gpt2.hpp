#pragma once
// GPT-2 decoders (Radford et al. 2019: small 124M, medium 355M, large 774M); see gpt2.cpp.
#include "sim/graph.hpp"
#include "workloads/layers.hpp"
#include "workloads/transformer.hpp"

#include <string>

namespace hs {

struct Gpt2Options {
  std::string name = "gpt2-small";
  long long layers = 12;
  transformer::Dimensions dims;
  long long vocab = 50257;
  long long context = 1024; // n_ctx: prompt plus generated tokens must fit
  long long seq = 128;  // prompt (inference) or training sequence length (the default; 2048 for Megatron's)
  long long decode = 8; // inference: tokens generated after the prefill, one step each
  // Inference: the prefill's LM head over every prompt token (as a framework's forward() returns them)
  // or over the last only (the default: generation needs no more). Training always takes every token.
  bool lm_head_all_tokens = false;
  // Training: activation recomputation of every transformer layer (Chen et al. 2016, as Megatron-LM runs
  // it): each layer's forward runs again in the backward pass, before the layer's gradients.
  bool recompute = false;
  layers::ModelOptions model;
};

// "small", "medium", "large"; or one of Megatron-LM's weak-scaling GPTs, "1.7b", "3.6b", "7.5b", "18.4b",
// "39.1b", "76.1b".
Gpt2Options gpt2_preset(const std::string& size);
Graph gpt2(const Gpt2Options& o);

} // namespace hs
