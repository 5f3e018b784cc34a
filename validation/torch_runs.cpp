#include "validation/torch_runs.hpp"

#include "sim/json_input.hpp"

#include <filesystem>

namespace hs::validation {

namespace {

KernelPoint load_op(const JsonNode& n, int threads) {
  n.expect_only({"node", "kind", "label", "shape", "flops", "bytes", "p50_s", "min_s"});
  KernelPoint p;
  p.kind = n.at("kind").as_string();
  p.label = n.at("node").as_string();
  for (const auto& [k, v] : n.at("shape").members()) {
    p.shape[k] = v.as_number();
    if (p.shape[k] < 0) v.fail("a dimension must not be negative");
  }
  if (point_threads(p) != threads) n.at("shape").fail("its threads differ from the run's");
  p.shape["in_graph"] = 1.0; // measured inside a model, after its predecessor (grid points lack it: 0)
  p.flops = n.at("flops").as_number();
  p.bytes = n.at("bytes").as_number();
  if (p.flops < 0) n.at("flops").fail("must not be negative");
  if (p.bytes < 0) n.at("bytes").fail("must not be negative");
  p.p50 = p.p95 = n.at("p50_s").as_number();
  if (!(p.p50 > 0)) n.at("p50_s").fail("a measured time must be positive");
  p.best = load_fastest_run(n, "min_s", p.p50);
  return p;
}

TorchRun load_run(const JsonNode& n, const std::filesystem::path& folder) {
  n.expect_only({"model", "network", "batch", "sequence", "threads", "repeats", "end_to_end_p50_s",
                 "end_to_end_p95_s", "end_to_end_min_s", "ops", "profiler_trace"});
  TorchRun r;
  r.model = n.at("model").as_string();
  r.network = n.at("network").as_string();
  r.batch = static_cast<int>(n.at("batch").as_integer(1, 1 << 20));
  r.sequence = static_cast<int>(n.at("sequence").as_integer(0, 1 << 20));
  r.threads = static_cast<int>(n.at("threads").as_integer(1, 4096));
  r.repeats = static_cast<int>(n.at("repeats").as_integer(1, 1 << 20));
  r.end_to_end_p50 = n.at("end_to_end_p50_s").as_number();
  r.end_to_end_p95 = n.at("end_to_end_p95_s").as_number();
  if (!(r.end_to_end_p50 > 0)) n.at("end_to_end_p50_s").fail("a measured time must be positive");
  if (r.end_to_end_p95 < r.end_to_end_p50) n.at("end_to_end_p95_s").fail("P95 must be at least P50");
  r.end_to_end_best = load_fastest_run(n, "end_to_end_min_s", r.end_to_end_p50);
  for (const auto& op : n.at("ops").items())
    r.ops.push_back(load_op(op, r.threads));
  if (r.ops.empty()) n.at("ops").fail("holds no op");
  if (auto t = n.find("profiler_trace")) r.profiler_trace = (folder / t->as_string()).string();
  return r;
}

} // namespace

int point_threads(const KernelPoint& p) {
  const auto it = p.shape.find("threads");
  return it == p.shape.end() ? 1 : static_cast<int>(it->second);
}

TorchRunSet load_torch_runs(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  root.expect_only({"format", "version", "environment", "runs"});
  root.expect_format("heterosim-torch-runs", true);
  TorchRunSet set;
  if (auto env = root.find("environment"))
    for (const auto& [k, v] : env->members())
      set.environment[k] = v.as_string();
  for (const auto& r : root.at("runs").items())
    set.runs.push_back(load_run(r, std::filesystem::path(path).parent_path()));
  if (set.runs.empty()) root.at("runs").fail("holds no run");
  return set;
}

} // namespace hs::validation
