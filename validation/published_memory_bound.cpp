#include "validation/published_memory_bound.hpp"

#include "sim/calibration.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "validation/csv_table.hpp"
#include "validation/published_kernels.hpp"

#include <algorithm>
#include <filesystem>

namespace hs::validation {

namespace {

// The launch overhead of the GPU presets (platforms/*.json, "typical CUDA kernel launch latency"), which
// `run` adds to every roofline-costed op: the fit takes it off the timings so that the sum is what was
// measured.
constexpr double kPresetLaunchSeconds = 5e-6;
// The presets' assumed share of the bandwidth, before these timings were fitted.
constexpr double kPresetMemoryEfficiency = 0.85;

struct PublishedOp {
  const char* kind;
  int inputs;   // tensors of b x h read
  double flops; // per element, as the workload builders count them (workloads/layers.cpp)
};

// NeuSight's op names (SOURCE.md): the binary ops read two tensors; addu and the like a tensor and a scalar.
const std::map<std::string, PublishedOp>& published_ops() {
  static const std::map<std::string, PublishedOp> ops = {
      {"add", {"elementwise", 2, 1}},  {"mul", {"elementwise", 2, 1}},  {"div", {"elementwise", 2, 1}},
      {"pow", {"elementwise", 2, 1}},  {"addu", {"elementwise", 1, 1}}, {"mulu", {"elementwise", 1, 1}},
      {"divu", {"elementwise", 1, 1}}, {"powu", {"elementwise", 1, 1}}, {"relu", {"elementwise", 1, 1}},
      {"tanh", {"elementwise", 1, 1}}, {"gelu", {"elementwise", 1, 8}}, {"softmax", {"softmax", 1, 5}},
      {"ln", {"layernorm", 1, 8}}};
  return ops;
}

// The value v minimising sum w |v - value|.
double weighted_median_of(std::vector<std::pair<double, double>> value_weight) {
  std::sort(value_weight.begin(), value_weight.end());
  double total = 0;
  for (const auto& [v, w] : value_weight)
    total += w;
  double below = 0;
  for (const auto& [v, w] : value_weight) {
    below += w;
    if (below >= total / 2) return v;
  }
  return value_weight.back().first;
}

// The points of one GPU as graph ops, costed by the cost model `run` uses on that GPU's datasheet platform.
std::vector<double> predicted_seconds(const std::vector<const MemoryBoundPoint*>& points,
                                      const GpuDatasheet& sheet, const MemoryBoundFit& fit,
                                      double launch_seconds) {
  GraphBuilder g("published-memory-bound");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const MemoryBoundPoint& p = *points[i];
    g.op(p.op + std::to_string(i))
        .kind(p.kind)
        .precision("fp32")
        .flops(p.flops)
        .reads(p.bytes - 4 * p.elements)
        .writes(4 * p.elements);
  }
  const Graph graph = g.build();
  Platform platform = parse_platform(datasheet_platform_json(sheet), "gpus.csv " + sheet.gpu);
  platform.devices.front().launch_overhead = launch_seconds;
  Calibration c;
  Calibration::Entry e;
  e.name = "memory-bound";
  e.applies_to.kinds = {"gpu"};
  e.memory_efficiency = fit.memory_efficiency;
  e.memory_time_factor = fit.memory_time_factor;
  e.by_memory_type = fit.by_memory_type;
  c.entries.push_back(std::move(e));
  const CostModel cost(graph, platform, c);
  std::vector<double> out;
  for (std::size_t i = 0; i < points.size(); ++i)
    out.push_back(cost.op_time(static_cast<OpId>(i), 0));
  return out;
}

// Signed percent errors by kind of `points` (all of one GPU) under `fit`.
void score(const std::vector<const MemoryBoundPoint*>& points, const GpuDatasheet& sheet,
           const MemoryBoundFit& fit, double launch_seconds,
           std::map<std::string, std::vector<double>>& errors_by_kind) {
  const auto predicted = predicted_seconds(points, sheet, fit, launch_seconds);
  for (std::size_t i = 0; i < points.size(); ++i)
    errors_by_kind[points[i]->kind].push_back(percent_error(predicted[i], points[i]->seconds));
}

std::map<std::string, ErrorStats> summarize_by_kind(const std::map<std::string, std::vector<double>>& e) {
  std::map<std::string, ErrorStats> out;
  for (const auto& [kind, errors] : e)
    out[kind] = summarize(errors);
  return out;
}

} // namespace

std::vector<MemoryBoundPoint> load_published_memory_bound(const std::string& dir) {
  const std::string path = dir + "/memory_bound.csv";
  if (!std::filesystem::exists(path)) return {};
  const auto sheets = load_gpu_datasheets(dir + "/gpus.csv");
  const CsvTable t = CsvTable::read(path);
  std::vector<MemoryBoundPoint> out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string& op = t.text(r, "op");
    const auto known = published_ops().find(op);
    if (known == published_ops().end())
      throw InputError(t.file(), "line " + std::to_string(t.line(r)) + ", column op",
                       "unknown op '" + op +
                           "' (known: add, addu, div, divu, gelu, ln, mul, mulu, pow, powu, "
                           "relu, softmax, tanh)");
    MemoryBoundPoint p;
    p.gpu = sheet_of_row(sheets, t, r).gpu;
    p.op = op;
    p.kind = known->second.kind;
    p.elements = t.positive(r, "b") * t.positive(r, "h");
    p.bytes = 4 * p.elements * (known->second.inputs + 1);
    p.flops = known->second.flops * p.elements;
    p.seconds = t.positive(r, "latency_ms") * 1e-3;
    out.push_back(std::move(p));
  }
  if (out.empty()) throw InputError(path, "", "no rows");
  return out;
}

MemoryBoundFit fit_memory_bound(const std::vector<const MemoryBoundPoint*>& points,
                                const std::map<std::string, GpuDatasheet>& sheets, double launch_seconds) {
  // Relative absolute error of c x + launch against t, with x = bytes / bandwidth, is sum (x / t) |c - r|
  // with r = (t - launch) / x: a weighted median of the r, per kind.
  std::map<std::string, std::vector<std::pair<double, double>>> ratios, family_streaming;
  for (const MemoryBoundPoint* p : points) {
    const GpuDatasheet& sheet = sheets.at(p->gpu);
    const double x = p->bytes / sheet.bandwidth;
    ratios[p->kind].emplace_back((p->seconds - launch_seconds) / x, x / p->seconds);
    if (p->kind != "elementwise") continue;
    for (const char* family : {"HBM", "GDDR"})
      if (sheet.units.memory_type.rfind(family, 0) == 0)
        family_streaming[family].emplace_back((p->seconds - launch_seconds) / x, x / p->seconds);
  }
  if (!ratios.count("elementwise")) throw InputError("memory_bound.csv", "", "no elementwise timings to fit");
  // A pass cannot beat the datasheet's bandwidth, nor a kind's extra passes beat one streaming pass.
  const double streaming = std::max(1.0, weighted_median_of(ratios.at("elementwise")));
  MemoryBoundFit fit;
  fit.memory_efficiency = 1.0 / streaming;
  std::map<std::string, double> per_byte; // each kind's time per byte over the bandwidth, on every GPU
  for (const auto& [kind, r] : ratios)
    if (kind != "elementwise") {
      per_byte[kind] = weighted_median_of(r);
      fit.memory_time_factor[kind] = std::max(1.0, per_byte[kind] / streaming);
    }
  for (const auto& [family, r] : family_streaming) {
    const double family_streaming_time = std::max(1.0, weighted_median_of(r));
    auto& system = fit.by_memory_type[family];
    system.memory_efficiency = 1.0 / family_streaming_time;
    for (const auto& [kind, t] : per_byte)
      system.memory_time_factor[kind] = std::max(1.0, t / family_streaming_time);
  }
  return fit;
}

PublishedMemoryBound evaluate_published_memory_bound(const std::vector<MemoryBoundPoint>& points,
                                                     const std::map<std::string, GpuDatasheet>& sheets) {
  PublishedMemoryBound out;
  out.points = points.size();
  out.launch_seconds = kPresetLaunchSeconds;
  out.assumed.memory_efficiency = kPresetMemoryEfficiency;
  std::map<std::string, std::vector<const MemoryBoundPoint*>> by_gpu;
  std::vector<const MemoryBoundPoint*> all;
  for (const auto& p : points) {
    by_gpu[p.gpu].push_back(&p);
    all.push_back(&p);
  }
  out.fit = fit_memory_bound(all, sheets, out.launch_seconds);
  std::map<std::string, std::vector<double>> assumed, held_out;
  for (const auto& [gpu, own] : by_gpu) {
    std::vector<const MemoryBoundPoint*> others;
    for (const auto* p : all)
      if (p->gpu != gpu) others.push_back(p);
    const auto& sheet = sheets.at(gpu);
    const MemoryBoundFit without = fit_memory_bound(others, sheets, out.launch_seconds);
    std::map<std::string, std::vector<double>> mine;
    score(own, sheet, without, out.launch_seconds, mine);
    out.held_out_by_gpu[gpu] = summarize_by_kind(mine);
    out.fit_without[gpu] = without;
    for (const auto& [kind, e] : mine)
      held_out[kind].insert(held_out[kind].end(), e.begin(), e.end());
    score(own, sheet, out.assumed, out.launch_seconds, assumed);
  }
  out.assumed_by_kind = summarize_by_kind(assumed);
  out.held_out_by_kind = summarize_by_kind(held_out);
  return out;
}

} // namespace hs::validation
