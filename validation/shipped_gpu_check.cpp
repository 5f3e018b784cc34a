#include "validation/shipped_gpu_check.hpp"

#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"

#include <vector>

namespace hs::validation {

namespace {

// One GEMM op per point, named by its dimensions as the workload builders name a linear layer's, so that
// `run` and this check cost it by the same path.
Graph gemm_graph(const std::vector<const KernelPoint*>& points) {
  GraphBuilder g("gpu-measurement-gemms");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const KernelPoint& p = *points[i];
    const double batch = gemm_dim(p, "batch", 1), m = gemm_dim(p, "m", 0), n = gemm_dim(p, "n", 0),
                 k = gemm_dim(p, "k", 0);
    auto op = g.op("gemm" + std::to_string(i)).kind("gemm").precision("fp32").flops(p.flops);
    op.reads(4 * batch * (m * k + k * n)).writes(4 * batch * m * n);
    g.mutable_op(op.id()).dims = {{"batch", batch},
                                  {"m", m},
                                  {"n", n},
                                  {"k", k},
                                  {kTransposedA, gemm_dim(p, kTransposedA, 0)},
                                  {kTransposedB, gemm_dim(p, kTransposedB, 0)}};
  }
  return g.build();
}

std::string group_of(const KernelPoint& p) {
  return p.label.substr(0, p.label.find(' '));
}

std::string costed_by(const Calibration& shipped, const Platform& gpu) {
  const Calibration::Entry* own = gpu.devices.empty() ? nullptr : shipped.find(gpu.devices.front());
  if (own && !own->learned) return "the wave model of entry '" + own->name + "' (" + own->measured + ")";
  const auto usage = calibration_usage_json(shipped, gpu);
  for (const auto& entry : usage["entries"]) // one device: its reason, where the trees leave it
    if (entry.contains("wave_model_only") && !entry["wave_model_only"].empty())
      return "the wave model alone (" + entry["wave_model_only"].begin()->get<std::string>() + ")";
  return "the learned model (trees over the wave model)";
}

} // namespace

double gemm_dim(const KernelPoint& p, const char* name, double fallback) {
  const auto it = p.shape.find(name);
  return it == p.shape.end() ? fallback : it->second;
}

bool names_gemm_dims(const KernelPoint& p) {
  return p.shape.count("m") && p.shape.count("n") && p.shape.count("k");
}

std::optional<ShippedGpuCheck> check_shipped_gpu_model(const MeasurementSet& m, const Platform& gpu,
                                                       const Calibration& shipped) {
  std::vector<const KernelPoint*> points;
  for (const auto& p : m.points)
    if (p.kind == "gemm" && p.co_running == 1 && names_gemm_dims(p)) points.push_back(&p);
  if (points.empty() || gpu.devices.size() != 1 || !shipped.find(gpu.devices.front()) ||
      gpu.devices.front().units.count <= 0)
    return std::nullopt;
  const Graph g = gemm_graph(points);
  const CostModel cost(g, gpu, shipped);
  ShippedGpuCheck check;
  check.calibration = shipped.file;
  check.costed_by = costed_by(shipped, gpu);
  std::vector<double> all;
  std::map<std::string, std::vector<double>> groups;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double e = percent_error(cost.op_time(static_cast<OpId>(i), 0), points[i]->p50);
    all.push_back(e);
    groups[group_of(*points[i])].push_back(e);
  }
  check.gemm = summarize(all);
  check.signed_errors = std::move(all);
  for (const auto& [name, errors] : groups)
    check.by_group[name] = summarize(errors);
  return check;
}

} // namespace hs::validation
