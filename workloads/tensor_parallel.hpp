#pragma once
// Tensor parallelism as Megatron-LM splits a transformer (Shoeybi et al. 2019): within each layer the
// attention's Q, K and V projections and the MLP's first GEMM are split by columns (heads and inner
// features), the attention itself runs on each rank's heads, and the output projection and the MLP's
// second GEMM are split by rows, so each rank holds 1/t of every such weight. Their partial results are
// summed by an all-reduce where a replicated op (residual, layer norm, embeddings, the head) reads them:
// twice per layer in the forward pass, twice in the backward pass. Everything else runs whole on every
// rank.
#include "sim/graph.hpp"
#include "workloads/collectives.hpp"

#include <string>
#include <vector>

namespace hs {

struct TensorParallelOptions {
  std::vector<std::string> devices; // one rank per device
  collectives::Algorithm algorithm = collectives::Algorithm::Ring;
  int channels = 1; // NCCL's channels for each all-reduce (ring only; collectives::CollectiveSpec)
  // Megatron's vocabulary split (VocabParallelEmbedding, a column-parallel LM head and the cross-entropy
  // over each rank's share of the vocabulary): the token embedding becomes a partial sum all-reduced
  // before the position embedding is added, and the gradient reaching the final layer norm is all-reduced.
  // Not modelled: the cross-entropy's three all-reduces of one figure per token (max, target logit, sum).
  bool split_vocabulary = false;
  // For tensor x pipeline parallelism: when not empty, op x of the graph (and the all-reduce of the partial
  // sums it reads) runs on the ranks groups[group_of[x]], each group as many devices as `devices`.
  std::vector<int> group_of{};
  std::vector<std::vector<std::string>> groups{};
};

// Whether `forward_name` is a layer Megatron splits ("<block>.attn.q", ".attn.scores", ".mlp.fc2", ...).
bool tensor_parallel_layer(const std::string& forward_name);
// Whether it is one the vocabulary split divides: the token embedding ("wte", "embeddings.word"), the LM
// head ("lm_head") and the loss over its logits ("loss", where the graph has an LM head; under
// loss=megatron its passes "loss.float" and "loss.softmax", while "loss" combines their all-reduced
// partials), and BERT's masked-LM decoder and loss ("cls.decoder", "mlm.loss").
bool vocabulary_layer(const std::string& forward_name);

// `g` is a transformer graph from the bert-* or gpt2-* builders with heads=fused (one attention op over
// batch x heads; a graph with one op per head is refused). Ops become "t<r>/<name>" pinned to devices[r];
// a split op keeps 1/t of its FLOPs, bytes, weights and workspace (a row-split GEMM writes its whole
// partial sum). Partial results that several split ops send one replicated op are added on each rank,
// then all-reduced once. Throws std::invalid_argument for fewer than 2 ranks, per-head attention ops, or a
// graph with nothing to split.
Graph tensor_parallel(const Graph& g, const TensorParallelOptions& options);
// The same, and for each op of the result the op of `g` it comes from (a rank's copy of it) or stands for
// (the adds and all-reduce steps of partial sums: the first op that reads them, whose ranks run them).
Graph tensor_parallel(const Graph& g, const TensorParallelOptions& options, std::vector<OpId>& origin);

} // namespace hs
