#pragma once
// Measured ops matched to a model's ops in order and by kind: the one matcher behind a torch.profiler
// trace against a traced torch run (validation/profiler_trace.hpp) and a trace or a times file against a
// HeteroSim workload (validation/workload_matching.hpp). Ops that do no work ("view") are left out on the
// model's side; the measurements hold only ops that do work. A measurement of k passes of the model
// holds its ops k times over, one pass after another.
#include <cstddef>
#include <string>
#include <vector>

namespace hs::validation {

struct MeasuredOp {
  std::string name; // as the measurement names it (aten::conv2d, a times file's op column)
  std::string kind; // compared with the model op's kind as given (both sides use one vocabulary)
  double seconds = 0.0;
  std::string where; // where it was read ("line 7"), for errors; may be empty
};

struct ModelOp {
  std::string label; // how errors name it: "resnet18 op conv1", "op 'stem.conv' (position 0 of 60)"
  std::string kind;  // "view" for an op that does no work
};

// Which of a k-pass measurement's times an op gets.
enum class TracePass {
  // Its fastest of the k: the steadiest figure of one op on a shared machine. Summed over a run these are
  // below any one pass (the fastest of a sum is not the sum of the fastest), by 2-15 % on the committed
  // traces.
  FastestEach,
  // Its time in the pass whose ops took least in all: times that did add up to a whole run, as the
  // runs' end-to-end figures are their fastest whole run.
  FastestPass,
};

// Per model op, its seconds in each pass (views: none).
struct PassTimes {
  std::size_t passes = 0;
  std::vector<std::vector<double>> seconds;
};

// Matches `measured` (in order) to `model`'s ops that do work, pass after pass; the number of passes is
// how many times over the measurement holds the model. Throws InputError naming `source` and the first
// op that does not match (its label, and the measured op's index, name and place), or the first op left
// over. `noun` names the measurement in those messages ("trace", "times file").
PassTimes match_in_order(const std::vector<MeasuredOp>& measured, const std::vector<ModelOp>& model,
                         const std::string& source, const std::string& noun);

// The pass whose ops took least in all (the first of equals).
std::size_t fastest_pass(const PassTimes& t);
// One time per model op (0 for views), as `which` says.
std::vector<double> pick_pass(const PassTimes& t, TracePass which);

} // namespace hs::validation
