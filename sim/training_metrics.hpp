#pragma once
// What a training step spread over devices amounts to, from its timeline: model FLOPs utilisation, the
// share of the step each device sat idle (a pipeline's bubble), and how much of the communication the
// compute hid. Communication is a device's collective steps and the transfers into or out of it;
// compute is every other op that does work.
#include "sim/execution.hpp"

namespace hs {

struct TrainingMetrics {
  int devices = 0;          // devices that ran compute
  double model_flops = 0.0; // FLOPs of the compute ops (forward, backward, optimizer)
  double peak_flops =
      0.0;          // those devices' peaks together, each at the precision that carries most of its FLOPs
  double mfu = 0.0; // model_flops / (step x peak_flops)
  double idle_fraction = 0.0; // mean over those devices of 1 - (time computing) / step
  double communication = 0.0; // mean over those devices of the time communicating, seconds
  double exposed = 0.0;       // of which no compute ran on the device at the same time, seconds
};

TrainingMetrics training_metrics(const Plan& plan, const CostModel& cost, const Execution& e);

} // namespace hs
