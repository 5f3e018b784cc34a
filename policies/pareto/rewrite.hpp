#pragma once
// Graph rewrites that the search decides together with placement.
//
// Fusion of a chain a -> b -> ... (convolution + batch-norm + activation, GEMM + bias + activation,
// elementwise chains): one op with the summed FLOPs, parameters and launch, minus the intermediate
// tensors' traffic (each was written once and read once). FLOPs are preserved exactly; bytes moved drop
// by exactly twice the intermediate tensors' bytes; the fused op occupies one device for the whole chain.
//
// Row split of a large GEMM across two devices: halves #0 and #1 with half the FLOPs, half the output
// and half the activation reads each; both read the whole weight (parameters are replicated, so each half
// holds them); a join op on #0's device gathers the two halves. FLOPs are preserved exactly; the
// documented overheads are: + param_bytes read, + 2 x bytes_written moved by the join, two launches, and
// every input tensor sent whole to the second device (a tensor is one buffer in this model).
//
// Demotion changes an op's precision to one its device has (see precision.hpp); sizes are kept.
#include "sim/cost_model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hs::pareto {

struct FusionCandidate {
  std::vector<OpId> chain; // producer first
};

struct SplitCandidate {
  OpId op = -1;
};

struct RewriteCandidates {
  std::vector<FusionCandidate> fusions;
  std::vector<SplitCandidate> splits;
};

struct RewriteOptions {
  int max_chain = 4;             // ops per fused chain
  double split_min_flops = 1e9;  // a GEMM is split only above this many FLOPs ...
  double split_min_share = 0.02; // ... and this share of the graph's FLOPs
  int max_splits = 32;           // the largest GEMMs only
};

// Chains whose intermediates have one producer and one consumer and whose ops share a feasible device;
// GEMMs large enough to be worth splitting that at least two devices can run. Deterministic.
RewriteCandidates find_rewrite_candidates(const CostModel& cost, const RewriteOptions& o = {});

struct RewriteDecision {
  std::vector<bool> fuse;             // per fusion candidate
  std::vector<bool> split;            // per split candidate (ignored when the op is in an active fusion)
  std::vector<std::string> precision; // per original op: new precision, or empty to keep it

  bool changes_graph() const;
};

enum class Role { Plain, Fused, SplitFirst, SplitSecond, Join };

struct RewrittenOp {
  Role role = Role::Plain;
  std::vector<OpId> origin; // original ops it stands for
  int candidate = -1;       // fusion or split candidate index
};

struct Rewritten {
  Graph graph;
  std::vector<RewrittenOp> ops; // per new op
};

// The shape of a rewritten graph without its names: what each new op stands for, and each new tensor's
// size, producer and consumers. apply_rewrites builds the Graph from it; the search builds only the flat
// arrays an evaluation reads (rewritten_model.hpp). New ops keep the original order (a fused chain where
// its lowest-id member was, a split's halves and join where the GEMM was); new tensors are the splits'
// half outputs, in op order, then the original tensors that still cross an op boundary, in their order.
struct RewriteLayout {
  struct NewTensor {
    TensorId origin = -1; // the original tensor, or -1 for a split half's output
    OpId producer = -1;   // a new op
    double bytes = 0.0;
  };
  std::vector<RewrittenOp> ops;
  std::vector<OpId> proto; // per new op: the original op whose attributes (and demotion) seed it
  std::vector<NewTensor> tensors;
  std::vector<OpId> consumers; // per new tensor, each new op once: [consumer_begin[t], consumer_begin[t+1])
  std::vector<std::uint32_t> consumer_begin = {0};
};

RewriteLayout layout_rewrites(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d);
// New op `i` of `layout`, without its edges: its name ("a+b" fused, "x#0", "x#1", "x#join"), kind,
// precision and sizes.
Op rewritten_op(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d,
                const RewriteLayout& layout, std::size_t i);
// Whether new op `i` is an original op unchanged (plain, and its precision kept).
bool is_unchanged(const Graph& g, const RewriteDecision& d, const RewriteLayout& layout, std::size_t i);

// The rewritten graph with names, from the layout of `d` (layout_rewrites(g, c, d)).
Rewritten build_rewritten(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d,
                          const RewriteLayout& layout);
Rewritten apply_rewrites(const Graph& g, const RewriteCandidates& c, const RewriteDecision& d);

} // namespace hs::pareto
