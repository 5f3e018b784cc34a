#pragma once
// BERT encoders; see bert.cpp.
#include "sim/graph.hpp"
#include "workloads/layers.hpp"
#include "workloads/transformer.hpp"

#include <string>

namespace hs {

struct BertOptions {
  std::string name = "bert-base";
  long long layers = 12;
  transformer::Dimensions dims;
  long long vocab = 30522;
  long long max_positions = 512;
  long long seq = 128;
  long long classes = 2;
  // The heads on the encoder: a sequence classifier over the pooled [CLS] row (false; the graph stops at the
  // pooler in inference), or BERT's pre-training heads (Devlin et al. 2019, as Hugging Face's
  // BertForPreTraining runs them): the masked-LM head over every token (dense, GELU, layer norm, then the
  // decoder tied to the word embeddings) and next-sentence prediction over the pooled row, each with its
  // loss in training.
  bool pretraining_heads = false;
  layers::ModelOptions model;
};

BertOptions bert_base();
BertOptions bert_large();
Graph bert(const BertOptions& o);

} // namespace hs
