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
  std::string name;                  // e.g. aten::conv2d
  double start = 0.0, seconds = 0.0; // on the host
  // The ops it called, in start order (aten::mkldnn_convolution shows the library path it took).
  std::vector<std::string> calls;
  // In a trace of a GPU run: the device time of the kernels, copies and fills it launched, and how many.
  double device_seconds = 0.0;
  int kernels = 0;
};

struct ProfilerTrace {
  std::vector<TraceOp> ops; // the model thread's top-level ops, in start order
  // Device activity (kernels, copies, fills) in the trace, and how much of it no top-level op of the model
  // thread launched (the backward pass's thread, or a launch outside any op).
  std::size_t device_events = 0, unattributed = 0;
};

// Complete ("ph": "X") events of category cpu_op (or with an aten:: name where no category is given);
// an op inside another's interval on the same thread is one of that op's calls. In a GPU trace (Kineto's
// categories kernel, gpu_memcpy and gpu_memset, or the older Kernel, Memcpy and Memset), each activity
// belongs to the top-level op during which its launch (a cuda_runtime or cuda_driver event with the same
// args.correlation) ran. Throws InputError naming the file and the event for anything malformed.
ProfilerTrace read_profiler_trace(const std::string& path);
std::vector<TraceOp> load_profiler_trace(const std::string& path);

// The host's time per issued op: the median gap between the starts of consecutive top-level ops that do
// work (the views and Python between them included, as HeteroSim's graphs have no view ops); 0 with fewer
// than two.
double trace_issue_seconds(const std::vector<TraceOp>& trace);

// HeteroSim's kind for a top-level aten op (conv2d, gemm, batchnorm, ...), "view" for ops that only
// relabel data, "" for names it does not know.
std::string kind_of_aten_op(const std::string& name);

// The trace's top-level ops of known kind that do work, in order, for match_in_order: each with its device
// time where it launched device work, else its host time.
std::vector<MeasuredOp> trace_work_ops(const std::vector<TraceOp>& trace);

// Seconds of each of `run`'s ops as the trace measured them: ops that do work are matched in order, by
// kind, to the trace's top-level ops of known kind (views are left out on both sides and get 0). A trace
// of k passes of the model gives each op one of its k times, as `pass` says. Throws InputError naming the
// trace and the first op that does not match (validation/op_matching.hpp).
std::vector<double> trace_op_seconds(const std::vector<TraceOp>& trace, const TorchRun& run,
                                     const std::string& trace_path, TracePass pass = TracePass::FastestEach);

} // namespace hs::validation
