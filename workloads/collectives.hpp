#pragma once
// Collectives (all-reduce, all-gather, reduce-scatter, broadcast, all-to-all) as transfer patterns in the
// graph: each step of the algorithm is an op pinned to its rank's device, and each chunk a rank sends is a
// tensor to the next rank's step. The engines then move the chunks over the platform's own routes, so the
// SimGrid replay shares link bandwidth between a collective and everything else that runs with it.
//
// Step ops have kind "collective": they cost the bytes they touch at the device's memory bandwidth and no
// kernel launch, because a collective runs as one persistent kernel whose steps wait on flags, as NCCL's
// do. A reduce step reads its own chunk and the one received and writes the sum; a step that only
// forwards (the all-gather phase of a ring) touches nothing.
#include "sim/graph_builder.hpp"

#include <string>
#include <vector>

namespace hs::collectives {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll };
enum class Algorithm {
  Ring,   // neighbours in rank order; broadcast pipelines `chunks` slices down the chain
  Tree,   // a binary tree over the ranks, reduced to rank 0 and broadcast back, whole buffers (not pipelined)
  Direct, // every rank sends to every other at once (all-to-all)
  Hierarchical, // all-reduce: ring reduce-scatter inside each group, ring all-reduce of each shard across
                // groups (rank i of every group together, one rail each), ring all-gather inside each group
};

struct CollectiveSpec {
  Collective op = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  // nccl-tests' size convention: all-reduce and broadcast the buffer; all-gather the gathered output;
  // reduce-scatter the input; all-to-all what each rank sends in all.
  double bytes = 0.0;
  std::vector<std::string> devices; // one per rank, in rank order
  std::string name = "coll";        // prefix of its ops' and tensors' names
  std::string precision = "fp32";
  int chunks = 0;     // pipelined slices for the chain broadcast (0: one per rank)
  int group_size = 0; // hierarchical: ranks per group (a node), consecutive in rank order
  // A ring of n ranks has n-1 steps per phase, so a ring over every node of a cluster is ranks x nodes
  // ops. When positive, at most this many steps are emitted per phase, each standing for k consecutive
  // ring steps: k chunks sent as one transfer, k reduces as one op. The bytes on every link and the
  // bandwidth term are exact; the latency term is paid once per emitted step instead of k times, so
  // (k-1) route latencies per emitted step are not counted. 0: every step.
  int max_ring_steps = 0;
  // NCCL's channels: the buffer split into this many parts, each a ring of its own, all at once. With
  // group_size g (ranks per node), channel c enters node k at local rank (c + k) mod g and leaves it at
  // (c + k + 1) mod g, so its hop to the next node joins the same local rank on both sides (one rail of a
  // rail-optimised network) and the channels cross each node boundary on different NICs. Ring all-reduce,
  // all-gather and reduce-scatter only.
  int channels = 1;
  // A ring over more identical ranks than `devices`, folded onto them (0: the devices). Each device takes
  // the whole ring's steps (ring_ranks - 1 per phase) with its chunks (bytes / ring_ranks), sent to its
  // neighbour among the devices. Where the ranks left out would do exactly what these do, at the same
  // times, on links of their own (identical data-parallel replicas, one rail each, a non-blocking fabric),
  // every link a device uses carries what it carries in the whole ring: a chunk out and a chunk in per
  // step. Hierarchical all-reduce: the ring across groups stands for ring_ranks / group_size groups.
  // Ring and hierarchical all-reduce, ring all-gather and reduce-scatter; one channel.
  int ring_ranks = 0;
};

// Appends the collective to `b`. `inputs[r]` is the op on rank r whose completion makes its data ready,
// or -1 for none (a start op is made). Returns, per rank, the op whose completion means that rank holds
// its result. Throws std::invalid_argument on a spec that cannot run (fewer than 2 ranks, a size that is
// not positive, an algorithm the collective does not have, a group size that does not divide the ranks).
std::vector<OpId> append_collective(GraphBuilder& b, const CollectiveSpec& spec,
                                    const std::vector<OpId>& inputs);

// nccl-tests' bus-bandwidth factor: busbw = algbw x factor, where algbw = bytes / time. All-reduce
// 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, broadcast 1, all-to-all (n-1)/n.
double bus_bandwidth_factor(Collective op, int ranks);

Collective collective_named(const std::string& name); // all-reduce, all-gather, reduce-scatter, ...
Algorithm algorithm_named(const std::string& name);   // ring, tree, direct, hierarchical
std::string collective_name(Collective op);
std::string algorithm_name(Algorithm a);

} // namespace hs::collectives
