#pragma once
// Data x tensor x pipeline parallelism over a mesh of devices, mapped as Megatron-LM maps it (Narayanan et
// al., SC 2021, section 3.3; megatron/mpu/initialize.py): tensor-parallel ranks are consecutive devices,
// so the 8 GPUs of a node on NVLink, pipeline stages next, data-parallel replicas outermost. Replica i's
// stage s, tensor rank r is devices[(i * pp + s) * tp + r]; with the platform's GPUs listed node by node
// and tp dividing the GPUs of a node, each tensor-parallel group is inside one node, and a stage's
// neighbours and its data-parallel peers are the same local rank on other nodes (one rail apart).
#include "sim/graph.hpp"
#include "workloads/collectives.hpp"
#include "workloads/data_parallel.hpp"
#include "workloads/pipeline_parallel.hpp"
#include "workloads/tensor_parallel.hpp"

#include <string>
#include <vector>

namespace hs {

struct MeshOptions {
  std::vector<std::string> devices; // dp x pp x tp of them, in the order above
  int data = 1, tensor = 1, pipeline = 1;
  PipelineOptions pipeline_options;     // its devices are ignored
  TensorParallelOptions tensor_options; // algorithm, channels, vocabulary; its devices are ignored
  DataParallelOptions data_options;     // its devices are ignored
};

// Megatron's splits of every stage's layers over that stage's tp devices (`options.devices`, stage-major:
// stage s, rank r on devices[s * tp + r]), each stage's all-reduces among its own ranks, then micro-batches
// and the schedule as pipeline_parallel runs them; each op becomes "m<k>/t<r>/<name>". Throws
// std::invalid_argument as tensor_parallel and pipeline_parallel do, and for a device count that is not a
// multiple of tp.
// `split` gives the all-reduces' algorithm and channels and whether the vocabulary is split; its devices
// and groups are the stages'.
Graph tensor_pipeline_parallel(const Graph& microbatch, int tp, const PipelineOptions& options,
                               TensorParallelOptions split = {});

// The whole mesh: one replica by tensor and pipeline parallelism (whichever are above 1; micro-batches on
// one stage are gradient accumulation) on the first pp x tp devices, then data parallelism across the
// replicas, each replica's device (s, r) all-reducing its gradients with the same (s, r) of every other. A
// mesh of one device (dp=tp=pp=1, no micro-batches) pins the step to it. Throws std::invalid_argument for a
// device count other than dp x tp x pp, and as the transformations it composes do.
Graph mesh_parallel(const Graph& step, const MeshOptions& options);

} // namespace hs
