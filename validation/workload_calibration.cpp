#include "validation/workload_calibration.hpp"

#include "sim/cost_model.hpp"
#include "sim/error.hpp"
#include "validation/framework_cost_model.hpp"
#include "validation/workload_matching.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

namespace hs::validation {

namespace {

// Kinds whose measured points start as compute-bound in the roofline fit (it then moves each point to
// the bound the fit says limits it).
bool starts_compute_bound(const std::string& kind) {
  const std::string k = matching_kind(kind);
  return k == "gemm" || k == "conv2d";
}

struct Fitted {
  RooflineFit roofline;
  std::shared_ptr<FrameworkModel> framework; // null: no op names its dimensions
  std::size_t framework_ops = 0;
};

Fitted fit(const Graph& g, const Device& d, const std::vector<OpPrediction>& ops, bool with_held_out,
           const WorkloadFitOptions& options) {
  const bool framework_model = options.framework_model;
  std::vector<FitPoint> points;
  std::vector<KernelPoint> framework_points;
  std::set<std::string> kinds, compute_kinds;
  std::map<std::string, std::string> aliases; // the graph's kind -> the framework model's
  for (const auto& o : ops) {
    if (o.held_out && !with_held_out) continue;
    const Op& op = g.op(o.op);
    kinds.insert(op.kind);
    if (starts_compute_bound(op.kind)) compute_kinds.insert(op.kind);
    points.push_back(
        {op.kind, op.flops, op.bytes_moved(), o.measured, d.peak_flops.at(op.precision), d.memory_bandwidth});
    if (!framework_model || op.dims.empty()) continue;
    KernelPoint k;
    k.kind = matching_kind(op.kind);
    if (k.kind != op.kind) aliases[op.kind] = k.kind;
    k.label = op.name;
    k.shape = op.dims;
    k.shape["threads"] = static_cast<double>(options.intra_op_threads);
    k.flops = op.flops;
    k.bytes = op.bytes_moved();
    k.p50 = k.p95 = k.best = o.measured;
    framework_points.push_back(std::move(k));
  }
  Fitted f;
  f.roofline = fit_roofline(points, {compute_kinds.begin(), compute_kinds.end()});
  // A kind the fit found memory-bound keeps the nominal compute peak, as RooflineFit::predict assumes;
  // written out, so the device's own efficiency for it does not come back in `run`.
  for (const auto& k : kinds)
    f.roofline.efficiency.emplace(k, 1.0);
  if (!framework_points.empty()) {
    f.framework = std::make_shared<FrameworkModel>(
        FrameworkCostModel(framework_points, {true, options.min_leaf}).model());
    // The graph's kinds as the trees know them (the builders' attention is a GEMM, their pooling a pool).
    f.framework->kind_aliases = aliases;
    f.framework_ops = framework_points.size();
  }
  return f;
}

Calibration::Entry entry_of(const Fitted& f, const Device& d, bool with_framework, int threads) {
  Calibration::Entry e = f.roofline.as_calibration_entry();
  e.name = d.name;
  e.applies_to.devices = {d.name};
  if (with_framework && f.framework) {
    e.framework = f.framework;
    e.intra_op_threads = threads;
  }
  return e;
}

// The core cost model's time of each op on `device` under one entry: what `run` would use.
std::vector<double> predict(const Graph& g, const Platform& p, DeviceId device, Calibration::Entry e,
                            const std::vector<OpPrediction>& ops) {
  Calibration c;
  c.entries.push_back(std::move(e));
  const CostModel cost(g, p, c);
  std::vector<double> t;
  for (const auto& o : ops)
    t.push_back(cost.op_time(o.op, device));
  return t;
}

ErrorsOver errors(const std::vector<OpPrediction>& ops, double OpPrediction::*predicted, bool held_out_only) {
  ErrorsOver e;
  std::vector<double> errs;
  for (const auto& o : ops) {
    if (held_out_only && !o.held_out) continue;
    e.measured += o.measured;
    e.predicted += o.*predicted;
    errs.push_back(percent_error(o.*predicted, o.measured));
  }
  e.per_op = summarize(errs);
  return e;
}

std::vector<OpPrediction> measured_ops(const Graph& g, const Platform& p, DeviceId device,
                                       const std::vector<double>& seconds, int every) {
  if (every < 2) throw std::invalid_argument("hold_out_every must be at least 2");
  const Device& d = p.devices.at(static_cast<std::size_t>(device));
  const CostModel plain(g, p);
  std::vector<OpPrediction> ops;
  std::map<std::string, std::size_t> of_kind; // ops of each kind so far
  for (const OpId id : g.topological_order()) {
    const auto i = static_cast<std::size_t>(id);
    if (i >= seconds.size() || !(seconds[i] > 0) || matching_kind(g.op(id).kind) == "view") continue;
    if (const std::string why = plain.infeasibility_reason(id, device); !why.empty())
      throw InputError(g.name, "op '" + g.op(id).name + "'", "cannot run on device '" + d.name + "': " + why);
    OpPrediction o;
    o.op = id;
    o.measured = seconds[i];
    // Counted per kind: a model's layers repeat a short pattern of kinds (conv, norm, activation), and
    // every Nth op overall could hold out all of one kind's ops in a stage.
    o.held_out = of_kind[matching_kind(g.op(id).kind)]++ % static_cast<std::size_t>(every) ==
                 static_cast<std::size_t>(every - 1);
    ops.push_back(o);
  }
  if (ops.empty()) throw std::invalid_argument("no op that does work was measured");
  return ops;
}

} // namespace

WorkloadCalibration calibrate_workload(const Graph& g, const Platform& p, DeviceId device,
                                       const std::vector<double>& seconds, const WorkloadFitOptions& o) {
  WorkloadCalibration c;
  c.ops = measured_ops(g, p, device, seconds, o.hold_out_every);
  const Device& d = p.devices.at(static_cast<std::size_t>(device));
  const Fitted all = fit(g, d, c.ops, true, o);
  const Fitted split = fit(g, d, c.ops, false, o);
  if (o.intra_op_threads < 1) throw std::invalid_argument("intra_op_threads must be at least 1");
  c.intra_op_threads = o.intra_op_threads;
  const int n = o.intra_op_threads;
  const auto in_sample = predict(g, p, device, entry_of(all, d, true, n), c.ops);
  const auto split_times = predict(g, p, device, entry_of(split, d, true, n), c.ops);
  const auto roof_in = predict(g, p, device, entry_of(all, d, false, n), c.ops);
  const auto roof_split = predict(g, p, device, entry_of(split, d, false, n), c.ops);
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    c.ops[i].in_sample = in_sample[i];
    c.ops[i].split = split_times[i];
    c.ops[i].roofline_in_sample = roof_in[i];
    c.ops[i].roofline_split = roof_split[i];
    c.split_total += split_times[i];
  }
  c.in_sample = errors(c.ops, &OpPrediction::in_sample, false);
  c.held_out = errors(c.ops, &OpPrediction::split, true);
  c.roofline_in_sample = errors(c.ops, &OpPrediction::roofline_in_sample, false);
  c.roofline_held_out = errors(c.ops, &OpPrediction::roofline_split, true);
  c.roofline = all.roofline;
  if (all.framework) {
    c.framework = *all.framework;
    c.has_framework = true;
    c.framework_ops = all.framework_ops;
  }
  return c;
}

CalibrationOut workload_calibration_entry(const WorkloadCalibration& c, const std::string& device_name,
                                          const std::string& measured, const std::string& framework_file) {
  CalibrationOut out;
  out.name = device_name;
  out.applies_to.devices = {device_name};
  out.measured = measured;
  out.held_out_mape_percent = std::round(c.held_out.per_op.mape * 10) / 10;
  out.fit = c.roofline;
  if (c.has_framework) out.framework_model = framework_file;
  out.intra_op_threads = c.intra_op_threads;
  return out;
}

} // namespace hs::validation
