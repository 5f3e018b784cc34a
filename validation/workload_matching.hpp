#pragma once
// Measured op times (validation/op_times.hpp: a times file or a torch.profiler trace) matched to the ops
// of a HeteroSim workload (a builder's graph, an ONNX import, graph JSON):
// - by index, where the file has an index column;
// - by name, where every row names an op of the workload;
// - otherwise in topological order by kind, as a trace is matched to a traced torch run (the same
//   matcher, validation/op_matching.hpp), pass after pass.
// Rows that name some of the workload's ops and not others are refused, naming the first unknown one.
// Every op that does work must have a time in every pass; the first that does not is named, with its
// position among them.
#include "sim/graph.hpp"
#include "validation/op_matching.hpp"
#include "validation/op_times.hpp"

#include <string>
#include <vector>

namespace hs::validation {

// One vocabulary for the kinds a workload, a times file and a trace give one op: the builders' attention
// and linear layers are GEMMs, their pooling the trace's pool, their activations and residual adds
// elementwise ops; an input or an inference dropout does no work ("view").
std::string matching_kind(const std::string& kind);

struct WorkloadMatch {
  std::string how; // "by index", "by name", "in topological order by kind"
  PassTimes times; // per op id of the workload
  std::size_t measured_rows = 0;
};

WorkloadMatch match_workload(const OpTimes& measured, const Graph& g);

} // namespace hs::validation
