#pragma once
// A PyTorch profiler trace (torch.profiler's Chrome-trace export: a JSON array of events, or an object
// with "traceEvents") read as the top-level CPU ops of one run, and matched to a traced model's ops, so
// that per-op predictions are compared with what the user's own profiler measured.
#include "validation/op_matching.hpp"
#include "validation/torch_runs.hpp"

#include <string>
#include <vector>

namespace hs::validation {

struct TraceOp {
  std::string name; // e.g. aten::conv2d
  double start = 0.0, seconds = 0.0;
  // The ops it called, in start order (aten::mkldnn_convolution shows the library path it took).
  std::vector<std::string> calls;
};

// Complete ("ph": "X") events of category cpu_op (or with an aten:: name where no category is given);
// an op inside another's interval on the same thread is one of that op's calls. Throws InputError naming
// the file and the event for anything malformed.
std::vector<TraceOp> load_profiler_trace(const std::string& path);

// HeteroSim's kind for a top-level aten op (conv2d, gemm, batchnorm, ...), "view" for ops that only
// relabel data, "" for names it does not know.
std::string kind_of_aten_op(const std::string& name);

// The trace's top-level ops of known kind that do work, in order, for match_in_order.
std::vector<MeasuredOp> trace_work_ops(const std::vector<TraceOp>& trace);

// Seconds of each of `run`'s ops as the trace measured them: ops that do work are matched in order, by
// kind, to the trace's top-level ops of known kind (views are left out on both sides and get 0). A trace
// of k passes of the model gives each op one of its k times, as `pass` says. Throws InputError naming the
// trace and the first op that does not match (validation/op_matching.hpp).
std::vector<double> trace_op_seconds(const std::vector<TraceOp>& trace, const TorchRun& run,
                                     const std::string& trace_path, TracePass pass = TracePass::FastestEach);

} // namespace hs::validation
