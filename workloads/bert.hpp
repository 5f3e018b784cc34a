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
  layers::ModelOptions model;
};

BertOptions bert_base();
BertOptions bert_large();
Graph bert(const BertOptions& o);

} // namespace hs
