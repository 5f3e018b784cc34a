#pragma once
// Data parallelism as a graph transformation, as PyTorch DDP runs it: one replica of a training step per
// device, each on its own slice of the batch, and the gradients averaged by all-reduces that start as
// soon as a bucket of them is ready, so communication overlaps the rest of the backward pass.
#include "sim/graph.hpp"
#include "workloads/collectives.hpp"

#include <string>
#include <vector>

namespace hs {

struct DataParallelOptions {
  // One replica per device; or, for a step already spread over k devices by tensor or pipeline
  // parallelism, k per replica: replica i runs what the step pins to its j-th device on devices[i*k + j].
  std::vector<std::string> devices;
  double bucket_bytes = 25.0 * (1 << 20); // DDP's default bucket_cap_mb = 25
  collectives::Algorithm algorithm = collectives::Algorithm::Ring;
  int group_size = 0; // hierarchical all-reduce: ranks per node
  // Steps emitted per ring phase at most (collectives::CollectiveSpec::max_ring_steps; 0: every one). 16
  // leaves every ring of up to 17 ranks exact and keeps a ring over 128 nodes at 16 steps, not 127.
  int max_ring_steps = 16;
  // ZeRO (Rajbhandari et al., SC 2020). 0: every replica keeps all optimizer state and all-reduces the
  // gradients. 1: each rank keeps and updates 1/n of the optimizer state; gradients are reduce-scattered
  // and the updated weights all-gathered (ring), the same bytes as an all-reduce. 2: also keeps only its
  // 1/n of the reduced gradients. 3: also keeps only 1/n of the weights, all-gathers each bucket's weights
  // before its forward use and again before its backward use, and frees them after; no all-gather after
  // the step (1.5x the bytes of an all-reduce, the paper's section 7).
  int zero_stage = 0;
  // NCCL's channels for every ring collective of the gradients (collectives::CollectiveSpec::channels).
  int channels = 1;
  // Whether a bucket's all-reduce starts as soon as its gradients are complete (PyTorch DDP), or only once
  // the whole backward pass has produced every gradient of the replica's device, as Megatron-LM's own DDP
  // (DDP_impl=local, its default in 2021) all-reduces after forward_backward returns.
  bool overlap = true;
  // The replicas the gradients' all-reduces stand for, when more than the devices hold (0: as many): each
  // bucket's ring is the ring over this many ranks folded onto the replicas built
  // (collectives::CollectiveSpec::ring_ranks), which is what the whole ring does where the replicas left
  // out are identical to these and their rings have links of their own. No ZeRO, one channel.
  int represented_replicas = 0;
};

// `step` is one replica's training step (forward, backward, an optimizer op per weight tensor; see
// workloads/layers.hpp), on one device or already pinned to several. Each op becomes "r<i>/<name>" on its
// replica's device. Each weight's gradient (the contributions its optimizer op reads, from several
// micro-batches or several uses of the weight, added first) joins, in the order the backward pass completes
// them, a bucket of at least `bucket_bytes` of the same step device; each bucket is all-reduced across the
// replicas' copies of that device, and every replica's optimizer op waits for it on its own rank. Throws
// std::invalid_argument for fewer than 2 replicas, a device count that is not a multiple of the step's, or a
// graph with no optimizer op.
Graph data_parallel(const Graph& step, const DataParallelOptions& options);

} // namespace hs
