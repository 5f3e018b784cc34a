#pragma once
// The order in which one pipeline stage runs its passes: GPipe (Huang et al. 2019: every forward, then
// every backward), 1F1B (PipeDream-flush, as Megatron-LM runs it: p - s - 1 forwards to warm up stage s,
// then one forward and one backward in turn) and interleaved 1F1B (Narayanan et al., SC 2021, section
// 2.2.2: each device holds v model chunks, and micro-batches go round the chunks in groups of p).
#include <vector>

namespace hs {

enum class PipelineSchedule { GPipe, OneForwardOneBackward };

struct PipelinePass {
  int microbatch = 0;
  int chunk = 0; // the device's model chunk, 0 .. v-1; stage s's chunk c is the model's chunk c*p + s
  bool backward = false;
};

// Stage s's passes, in order, for p stages, m micro-batches and v chunks per device. With v > 1 the
// schedule is Megatron-LM's interleaved 1F1B (megatron/schedules.py,
// forward_backward_pipelining_with_interleaving): (p - s - 1) * 2 + (v - 1) * p forwards to warm up (all
// of them when m == p), then one forward and one backward in turn; the k-th forward runs chunk
// (k mod pv) div p on micro-batch (k div pv) * p + k mod p, the k-th backward the same micro-batch on
// chunk v - 1 - (k mod pv) div p. It needs m to be a multiple of p (checked by the caller). Its bubble is
// (p - 1) / v passes of a whole stage, so the idle share of the step is (p - 1) / (v m + p - 1).
std::vector<PipelinePass> stage_order(PipelineSchedule schedule, int s, int p, int m, int v = 1);

} // namespace hs
