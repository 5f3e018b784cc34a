#pragma once
// `run --parallel dp=8,bucket=25MiB,algo=ring,batch=8` or `--parallel pp=4,microbatches=8,schedule=1f1b`: a
// training step spread over several devices by a graph transformation, and the training figures the
// report then gains (step time, samples/s). `tp=2` splits a transformer's layers as Megatron-LM does.
// They compose as Megatron-LM's mesh (workloads/mesh_parallel.hpp): `dp=2,tp=2,pp=2,microbatches=8` runs
// 2 replicas of a 2-stage pipeline whose stages are each split over 2 GPUs (8 GPUs); `interleave=V` gives
// each pipeline device V model chunks (interleaved 1F1B). `dp=32,replicas=2` builds 2 of 32 identical
// replicas and folds the gradients' 32-rank rings onto them (DataParallelOptions::represented_replicas).
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/report.hpp"
#include "workloads/mesh_parallel.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace hs::cli {

struct ParallelSetup {
  std::string text; // as given
  int data_parallel = 1;
  int simulated_replicas = 0; // replicas=R: R of the data_parallel replicas built, the rings folded (0: all)
  DataParallelOptions dp;
  int pipeline_stages = 1;
  PipelineOptions pp;
  int tensor_parallel = 1;
  TensorParallelOptions tp;       // split_vocabulary; the rest is set from dp's algorithm and channels
  double samples_per_replica = 1; // each micro-batch's batch (a replica runs pp.microbatches of them)
  double tokens_per_sample = 0;   // the workload's seq=, when it has one
  const std::vector<std::string>& devices() const { return dp.devices; } // every device of the run
  int inner() const { return pipeline_stages * tensor_parallel; }        // devices of one replica
  int replicas() const { return simulated_replicas > 0 ? simulated_replicas : data_parallel; } // built
  int width() const { return replicas() * inner(); }
  double samples_per_step() const { return samples_per_replica * pp.microbatches * data_parallel; }
};

// Parses `text` against `platform` (devices default to its first GPUs, in order); `workload` is the
// workload spec, whose batch= gives each replica's batch when `text` has no batch=. Throws InputError
// naming "--parallel" and the key.
ParallelSetup parse_parallel(const std::string& text, const Platform& platform, const std::string& workload);
Graph apply_parallel(const Graph& step, const ParallelSetup& setup);

// Two lines for the run summary: the layout, then step time, samples/s (and tokens/s), MFU, idle share
// of the step and communication exposed; and the same as JSON for report.json's "parallel".
std::string parallel_summary(const ParallelSetup& s, const Report& report);
nlohmann::ordered_json parallel_json(const ParallelSetup& s, const Report& report);

} // namespace hs::cli
