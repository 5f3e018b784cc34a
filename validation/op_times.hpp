#pragma once
// Measured per-op times of a real model run, as a CSV a user writes from their own timer or profiler, or
// read from a torch.profiler Chrome trace (validation/profiler_trace.hpp). Format "heterosim op times",
// version 1 (docs/calibration.md, "Calibrating a workload from measured ops"): a header row naming the
// columns, in any order,
//   op       the op's name: the workload's (matched by name) or the measurement's own (aten::conv2d:
//            matched in topological order by kind)
//   index    (instead of op, or beside it) the op's id in the workload: its position in the graph's op list
//   kind     a HeteroSim op kind (sim/op_kinds.hpp)
//   seconds  the measured time, positive and finite
//   pass     (optional) which run of the model the row belongs to, an integer >= 0; rows of one pass
//            need not be adjacent
// and nothing else. Blank lines are skipped.
#include <string>
#include <vector>

namespace hs::validation {

struct OpTimeRow {
  std::string op;       // empty when the file gives only an index
  long long index = -1; // the workload op id, or -1
  std::string kind;
  double seconds = 0.0;
  long long pass = -1; // -1: the file has no pass column
  std::string where;   // "line 7", or the trace event's order for a trace
};

struct OpTimes {
  std::string file;
  std::string noun; // "times file" or "trace", as errors name it
  std::vector<OpTimeRow> rows;
  bool has_pass = false;
  // A trace of a GPU run: its rows are device times, and the host's time per issued op is measured
  // (trace_issue_seconds); device activity no model op launched is counted, not timed.
  bool device_times = false;
  double issue_seconds = 0.0;
  std::size_t device_events = 0, unattributed_device_events = 0;
};

// Throws InputError naming the file, line and column of a malformed, non-finite, non-positive or unknown
// value, an unknown column or a missing one.
OpTimes load_op_times(const std::string& path);

// The top-level ops that do work of a torch.profiler trace (validation/profiler_trace.hpp), as rows with
// the aten name, its HeteroSim kind (kind_of_aten_op's "pool" as "pooling") and its time (on a GPU trace,
// its kernels' device time), in order, without a pass column (a trace of k passes holds the model k times
// over).
OpTimes op_times_from_trace(const std::string& path);

// The times as a CSV of this format (columns op, index, kind, seconds, pass; %.17g), which
// load_op_times reads back to the same rows.
std::string op_times_csv(const std::vector<OpTimeRow>& rows);

} // namespace hs::validation
