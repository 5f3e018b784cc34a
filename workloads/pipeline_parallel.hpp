#pragma once
// Pipeline parallelism as a graph transformation: the layers cut into contiguous stages, one per device
// (or v chunks per device, interleaved); the batch cut into micro-batches that flow through them; the
// stage's order of forward and backward passes fixed by the schedule (workloads/pipeline_schedule.hpp),
// with the gradients of every micro-batch accumulated into one optimizer step per weight. One stage is
// gradient accumulation without a pipeline: the micro-batches run one after the other on the same devices
// (forward, backward, next), as Megatron-LM's forward_backward_no_pipelining does.
#include "sim/graph.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/pipeline_schedule.hpp"

#include <string>
#include <vector>

namespace hs {

struct PipelineOptions {
  std::vector<std::string> devices; // one stage per device, first stage first
  int microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::OneForwardOneBackward;
  // Model chunks per device (virtual stages, Narayanan et al. 2021): the layers are cut into
  // stages x interleave chunks and chunk c runs on devices[c mod stages]. Above 1 the schedule is
  // interleaved 1F1B, and the micro-batches must be a multiple of the stages.
  int interleave = 1;
  // How the layers are cut into chunks. false: balanced on each layer's forward and backward FLOPs
  // (cutting only between checkpointed blocks). true, Megatron-LM's rule: the same number of checkpointed
  // blocks (transformer layers, recompute=full) per chunk, what precedes the first block (embeddings) with
  // the first chunk and what follows the last (final norm, head, loss) with the last.
  bool equal_layers = false;
};

// `microbatch` is the training step of one micro-batch, named as workloads/layers.hpp names ops: layer
// "x" has forward op "x", backward ops "x.dgrad", "x.wgrad", "x.bwd", "x.bwd_rhs" or "x.gradsum", and
// optimizer op kind "optimizer". Stages are contiguous in topological order and balanced on each layer's
// forward and backward FLOPs. Ops become "m<k>/<name>" pinned to their stage's device (optimizer ops once,
// reading every micro-batch's gradient; weights resident once per stage). Throws std::invalid_argument for no
// stage, no micro-batch, interleaved chunks on one stage, no backward op, more stages (times chunks) than
// forward layers, or an interleaved pipeline whose micro-batches are not a multiple of its stages or whose
// schedule is GPipe.
Graph pipeline_parallel(const Graph& microbatch, const PipelineOptions& options);

// Each op's model chunk (its stage without interleaving), by the same rule as pipeline_parallel, for
// `chunks` contiguous chunks: chunk_of[op] for the ops of `microbatch` (`equal_layers`: see PipelineOptions).
// `what` names the pipeline in the error for too few layers (default: "a pipeline of <chunks> stages").
std::vector<int> pipeline_stages(const Graph& microbatch, int chunks, const std::string& what = "",
                                 bool equal_layers = false);

// What the schedule needs of a micro-batch graph whose ops are already placed, as tensor x pipeline
// parallelism places them: each op's pass and model chunk, and its device as an index into `devices`,
// which lists `ranks` devices per stage, stage-major (stage s, rank r: devices[s * ranks + r]).
struct PipelineLayout {
  std::vector<Pass> pass;
  std::vector<int> chunk; // 0 .. stages * interleave - 1; chunk c runs on stage c mod stages
  std::vector<int> device;
  std::vector<std::string> devices;
  int ranks = 1;
};

// The micro-batches of `placed` and the barriers that fix each device's order of passes; what
// pipeline_parallel does once it has placed the layers. `options.devices` is ignored (the layout has them).
Graph pipeline_schedule(const Graph& placed, const PipelineLayout& layout, const PipelineOptions& options,
                        const std::string& name);

// Throws std::invalid_argument for what no pipeline can run: no stage, no micro-batch, an interleave below
// 1 or above 1 on one stage, or an interleaved pipeline that is GPipe or has micro-batches not a multiple
// of p.
void check_pipeline(int stages, const PipelineOptions& options);

// The transformed graph's name suffix: "-pp4x8" (stages x micro-batches), "-pp4x8v2" (interleaved), or
// "-accum8" for one stage.
std::string schedule_suffix(int stages, const PipelineOptions& options);

} // namespace hs
