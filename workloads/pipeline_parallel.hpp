#pragma once
// Pipeline parallelism as a graph transformation: the layers cut into contiguous stages, one per device;
// the batch cut into micro-batches that flow through them; the stage's order of forward and backward
// passes fixed by the schedule (GPipe: all forwards, then all backwards; 1F1B, PipeDream-flush as
// Megatron-LM runs it: p - s - 1 forwards to warm up, then one forward and one backward in turn), with
// the gradients of every micro-batch accumulated into one optimizer step per weight.
#include "sim/graph.hpp"

#include <string>
#include <vector>

namespace hs {

enum class PipelineSchedule { GPipe, OneForwardOneBackward };

struct PipelineOptions {
  std::vector<std::string> devices; // one stage per device, first stage first
  int microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::OneForwardOneBackward;
};

// `microbatch` is the training step of one micro-batch, named as workloads/layers.hpp names ops: layer
// "x" has forward op "x", backward ops "x.dgrad", "x.wgrad" or "x.bwd", and optimizer op kind
// "optimizer". Stages are contiguous in topological order and balanced on each layer's forward and
// backward FLOPs. Ops become "m<k>/<name>" pinned to their stage's device (optimizer ops once, reading
// every micro-batch's gradient; weights resident once per stage). Throws std::invalid_argument for fewer
// than 2 stages, no micro-batch, no backward op, or more stages than forward layers.
Graph pipeline_parallel(const Graph& microbatch, const PipelineOptions& options);

// Each device's stage, by the same rule as pipeline_parallel: stage_of[op] for the ops of `microbatch`.
std::vector<int> pipeline_stages(const Graph& microbatch, int stages);

} // namespace hs
