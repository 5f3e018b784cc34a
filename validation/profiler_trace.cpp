#include "validation/profiler_trace.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"

#include <algorithm>
#include <map>

namespace hs::validation {

namespace {

struct Event {
  std::string name;
  double ts = 0.0, dur = 0.0; // microseconds, as the Chrome trace format has them
};

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

double total_seconds(const std::vector<TraceOp>& ops) {
  double s = 0.0;
  for (const auto& o : ops)
    s += o.seconds;
  return s;
}

} // namespace

std::vector<TraceOp> load_profiler_trace(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  const std::vector<JsonNode> events = root.raw().is_array() ? root.items() : root.at("traceEvents").items();
  std::map<std::string, std::vector<Event>> by_thread;
  for (const auto& e : events) {
    if (!e.has("ph") || e.at("ph").as_string() != "X" || !e.has("name") || !is_cpu_op(e)) continue;
    Event ev{e.at("name").as_string(), e.at("ts").as_number(), e.at("dur").as_number()};
    if (ev.dur < 0) e.at("dur").fail("a duration must not be negative");
    by_thread[thread_of(e)].push_back(std::move(ev));
  }
  if (by_thread.empty()) root.fail("holds no complete CPU op event (\"ph\": \"X\")");
  // The thread that ran the model is the one whose top-level ops took longest (worker threads of an
  // intra-op pool record little or nothing).
  std::vector<TraceOp> best;
  for (auto& [thread, evs] : by_thread) {
    auto ops = nest(std::move(evs));
    if (total_seconds(ops) > total_seconds(best)) best = std::move(ops);
  }
  return best;
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
    if (!kind.empty() && kind != "view") work.push_back({op.name, kind, op.seconds, ""});
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
