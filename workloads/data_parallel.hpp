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
  std::vector<std::string> devices;       // one replica per device
  double bucket_bytes = 25.0 * (1 << 20); // DDP's default bucket_cap_mb = 25
  collectives::Algorithm algorithm = collectives::Algorithm::Ring;
  int group_size = 0; // hierarchical all-reduce: ranks per node
};

// `step` is one replica's training step (forward, backward, an optimizer op per weight tensor; see
// workloads/layers.hpp). Each op becomes "r<i>/<name>" pinned to devices[i]. The gradients an optimizer op
// reads are gathered, in the order the backward pass produces them, into buckets of at least
// `bucket_bytes`; each bucket is all-reduced across the replicas, and every replica's optimizer op of a
// bucket waits for that all-reduce on its own rank. Throws std::invalid_argument for fewer than 2 devices
// or a graph with no optimizer op.
Graph data_parallel(const Graph& step, const DataParallelOptions& options);

} // namespace hs
