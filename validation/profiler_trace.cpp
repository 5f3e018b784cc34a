#include "validation/profiler_trace.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "validation/measurement_set.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

namespace hs::validation {

namespace {

struct Event {
  std::string name;
  double ts = 0.0, dur = 0.0; // microseconds, as the Chrome trace format has them
};

// A known aten op that is not a view (which only relabels data).
bool does_work(const std::string& kind) {
  return !kind.empty() && kind != "view";
}

bool in_category(const JsonNode& e, std::initializer_list<const char*> categories) {
  if (!e.has("cat")) return false;
  const std::string c = e.at("cat").as_string();
  return std::any_of(categories.begin(), categories.end(), [&](const char* name) { return c == name; });
}

// Kineto's categories, and those of PyTorch's profiler before 1.10.
bool is_device_activity(const JsonNode& e) {
  return in_category(e, {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"});
}
bool is_launch(const JsonNode& e) {
  return in_category(e, {"cuda_runtime", "cuda_driver", "Runtime"});
}

std::optional<long long> correlation_of(const JsonNode& e) {
  if (auto args = e.find("args"))
    if (auto c = args->find("correlation")) return c->as_integer(0, std::numeric_limits<long long>::max());
  return std::nullopt;
}

bool is_cpu_op(const JsonNode& e) {
  if (auto cat = e.find("cat")) {
    const std::string c = cat->as_string();
    return c == "cpu_op" || c == "Operator";
  }
  return e.at("name").as_string().rfind("aten::", 0) == 0;
}

std::string thread_of(const JsonNode& e) {
  const auto part = [&](const char* key) { return e.has(key) ? e.at(key).raw().dump() : std::string("-"); };
  return part("pid") + "/" + part("tid");
}

// Top-level ops of one thread's events: each event inside an earlier one's interval is its call.
std::vector<TraceOp> nest(std::vector<Event> events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
  std::vector<TraceOp> ops;
  double open_until = -1.0;
  for (const Event& e : events) {
    // Times are whole microseconds: a call may seem to end 1 us after the op that made it.
    if (!ops.empty() && e.ts < open_until && e.ts + e.dur <= open_until + 1.0) {
      ops.back().calls.push_back(e.name);
      continue;
    }
    ops.push_back({e.name, e.ts * 1e-6, e.dur * 1e-6, {}});
    open_until = e.ts + e.dur;
  }
  return ops;
}

// The top-level op whose interval holds `t` (seconds), or nullptr. Times are whole microseconds: a launch
// may seem to start 1 us after its op ended.
TraceOp* op_running_at(std::vector<TraceOp>& ops, double t) {
  auto after =
      std::upper_bound(ops.begin(), ops.end(), t, [](double x, const TraceOp& o) { return x < o.start; });
  if (after == ops.begin()) return nullptr;
  TraceOp& op = *std::prev(after);
  return t <= op.start + op.seconds + 1e-6 ? &op : nullptr;
}

double total_seconds(const std::vector<TraceOp>& ops) {
  double s = 0.0;
  for (const auto& o : ops)
    s += o.seconds;
  return s;
}

} // namespace

ProfilerTrace read_profiler_trace(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  const std::vector<JsonNode> events = root.raw().is_array() ? root.items() : root.at("traceEvents").items();
  std::map<std::string, std::vector<Event>> by_thread;
  std::map<long long, std::pair<std::string, double>> launches;        // correlation -> (thread, start in us)
  std::vector<std::pair<std::optional<long long>, double>> activities; // (correlation, us on the device)
  for (const auto& e : events) {
    if (!e.has("ph") || e.at("ph").as_string() != "X" || !e.has("name")) continue;
    const double ts = e.at("ts").as_number(), dur = e.at("dur").as_number();
    if (dur < 0) e.at("dur").fail("a duration must not be negative");
    if (is_device_activity(e))
      activities.emplace_back(correlation_of(e), dur);
    else if (is_launch(e)) {
      if (const auto c = correlation_of(e)) launches[*c] = {thread_of(e), ts};
    } else if (is_cpu_op(e))
      by_thread[thread_of(e)].push_back({e.at("name").as_string(), ts, dur});
  }
  if (by_thread.empty()) root.fail("holds no complete CPU op event (\"ph\": \"X\")");
  // The thread that ran the model is the one whose top-level ops took longest (worker threads of an
  // intra-op pool record little or nothing).
  ProfilerTrace trace;
  std::string model_thread;
  for (auto& [thread, evs] : by_thread) {
    auto ops = nest(std::move(evs));
    if (total_seconds(ops) > total_seconds(trace.ops)) trace.ops = std::move(ops), model_thread = thread;
  }
  trace.device_events = activities.size();
  for (const auto& [correlation, dur] : activities) {
    const auto launch = correlation ? launches.find(*correlation) : launches.end();
    TraceOp* op = launch == launches.end() || launch->second.first != model_thread
                      ? nullptr
                      : op_running_at(trace.ops, launch->second.second * 1e-6);
    if (op == nullptr) {
      ++trace.unattributed;
      continue;
    }
    op->device_seconds += dur * 1e-6;
    ++op->kernels;
  }
  return trace;
}

std::vector<TraceOp> load_profiler_trace(const std::string& path) {
  return read_profiler_trace(path).ops;
}

double trace_issue_seconds(const std::vector<TraceOp>& trace) {
  std::vector<double> starts, gaps;
  for (const auto& op : trace)
    if (does_work(kind_of_aten_op(op.name))) starts.push_back(op.start);
  for (std::size_t i = 1; i < starts.size(); ++i)
    gaps.push_back(starts[i] - starts[i - 1]);
  return gaps.empty() ? 0.0 : percentile(gaps, 0.5);
}

std::string kind_of_aten_op(const std::string& name) {
  static const std::map<std::string, std::string> kinds = {
      {"aten::conv2d", "conv2d"},
      {"aten::linear", "gemm"},
      {"aten::matmul", "gemm"},
      {"aten::addmm", "gemm"},
      {"aten::mm", "gemm"},
      {"aten::bmm", "gemm"},
      {"aten::batch_norm", "batchnorm"},
      {"aten::layer_norm", "layernorm"},
      {"aten::softmax", "softmax"},
      {"aten::relu", "elementwise"},
      {"aten::relu_", "elementwise"},
      {"aten::gelu", "elementwise"},
      {"aten::add", "elementwise"},
      {"aten::add_", "elementwise"},
      {"aten::mul", "elementwise"},
      {"aten::div", "elementwise"},
      {"aten::max_pool2d", "pool"},
      {"aten::adaptive_avg_pool2d", "pool"},
      {"aten::avg_pool2d", "pool"},
      {"aten::embedding", "embedding"},
      {"aten::view", "view"},
      {"aten::reshape", "view"},
      {"aten::permute", "view"},
      {"aten::transpose", "view"},
      {"aten::flatten", "view"},
      {"aten::dropout", "view"},
      {"aten::unsqueeze", "view"},
      {"aten::expand", "view"},
  };
  const auto it = kinds.find(name);
  return it == kinds.end() ? std::string() : it->second;
}

std::vector<MeasuredOp> trace_work_ops(const std::vector<TraceOp>& trace) {
  std::vector<MeasuredOp> work;
  for (const auto& op : trace) {
    const std::string kind = kind_of_aten_op(op.name);
    if (does_work(kind)) work.push_back({op.name, kind, op.kernels > 0 ? op.device_seconds : op.seconds, ""});
  }
  return work;
}

std::vector<double> trace_op_seconds(const std::vector<TraceOp>& trace, const TorchRun& run,
                                     const std::string& trace_path, TracePass which) {
  std::vector<ModelOp> model;
  model.reserve(run.ops.size());
  for (const KernelPoint& op : run.ops)
    model.push_back({run.model + " op " + op.label, op.kind});
  return pick_pass(match_in_order(trace_work_ops(trace), model, trace_path, "trace"), which);
}

} // namespace hs::validation
