#include "sim/cost_model.hpp"

#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"
#include "sim/op_kinds.hpp"

#include <algorithm>
#include <cmath>

namespace hs {

CostModel::CostModel(const Graph& g, const Platform& p)
    : CostModel(g, p, p.calibration ? *p.calibration : Calibration{}) {}

CostModel::CostModel(const Graph& g, const Platform& p, Calibration c)
    : graph_(&g), platform_(&p), calibration_(std::move(c)), devices_(p.device_count()) {
  row_.resize(static_cast<std::size_t>(g.op_count()));
  for (OpId o = 0; o < g.op_count(); ++o)
    cost_op(o);
}

CostModel::CostModel(const Graph& g, const CostModel& like, const std::vector<OpId>& same_as)
    : graph_(&g), platform_(like.platform_), calibration_(like.calibration_), devices_(like.devices_),
      routes_summarised_(like.routes_summarised_), mean_route_latency_(like.mean_route_latency_),
      mean_inverse_bandwidth_(like.mean_inverse_bandwidth_) {
  row_.resize(static_cast<std::size_t>(g.op_count()));
  for (OpId o = 0; o < g.op_count(); ++o) {
    const OpId same =
        static_cast<std::size_t>(o) < same_as.size() ? same_as[static_cast<std::size_t>(o)] : -1;
    if (same < 0)
      cost_op(o);
    else
      copy_op(o, like, same);
  }
}

std::optional<DeviceId> CostModel::pinned_device(const Op& o) const {
  if (o.has_explicit_times() || o.allowed_devices.size() != 1) return std::nullopt;
  return platform_->find_device(o.allowed_devices.front()).value_or(-1);
}

void CostModel::cost_op(OpId o) {
  const Op& op = graph_->op(o);
  if (const auto pin = pinned_device(op)) {
    Pin p{*pin, kInfeasible};
    if (p.device >= 0 && structural_reason(op, p.device).empty()) {
      const double t = roofline(op, platform_->devices[static_cast<std::size_t>(p.device)]);
      p.seconds = std::isfinite(t) ? t : kInfeasible;
    }
    row_[static_cast<std::size_t>(o)] = -1 - static_cast<std::int64_t>(pins_.size());
    pins_.push_back(p);
    return;
  }
  row_[static_cast<std::size_t>(o)] = static_cast<std::int64_t>(op_time_.size());
  op_time_.resize(op_time_.size() + static_cast<std::size_t>(devices_));
  op_times(op, op_time_.data() + row_[static_cast<std::size_t>(o)]);
}

void CostModel::copy_op(OpId o, const CostModel& like, OpId same) {
  const std::int64_t from = like.row_[static_cast<std::size_t>(same)];
  if (from < 0) {
    row_[static_cast<std::size_t>(o)] = -1 - static_cast<std::int64_t>(pins_.size());
    pins_.push_back(like.pins_[static_cast<std::size_t>(-1 - from)]);
    return;
  }
  row_[static_cast<std::size_t>(o)] = static_cast<std::int64_t>(op_time_.size());
  const auto begin = like.op_time_.begin() + from;
  op_time_.insert(op_time_.end(), begin, begin + devices_);
}

const std::vector<double>& CostModel::op_time_table() const {
  if (pins_.empty()) return op_time_; // rows in op order, every op with one
  if (table_.empty()) {
    table_.resize(row_.size() * static_cast<std::size_t>(devices_));
    for (std::size_t o = 0; o < row_.size(); ++o)
      for (DeviceId d = 0; d < devices_; ++d)
        table_[o * static_cast<std::size_t>(devices_) + static_cast<std::size_t>(d)] =
            op_time(static_cast<OpId>(o), d);
  }
  return table_;
}

void CostModel::op_times(const Op& op, double* row) const {
  // A pinned op is refused by every other device; asking each why would build a message per device.
  std::optional<DeviceId> only;
  if (!op.has_explicit_times() && op.allowed_devices.size() == 1)
    only = platform_->find_device(op.allowed_devices.front()).value_or(-1);
  for (DeviceId d = 0; d < devices_; ++d)
    if ((!only || *only == d) && structural_reason(op, d).empty()) {
      const double t = roofline(op, platform_->devices[static_cast<std::size_t>(d)]);
      row[d] = std::isfinite(t) ? t : kInfeasible;
    } else {
      row[d] = kInfeasible;
    }
}

void CostModel::summarise_routes() const {
  if (routes_summarised_) return;
  routes_summarised_ = true;
  const Platform& p = *platform_;
  int pairs = 0;
  for (DeviceId a = 0; a < devices_; ++a)
    for (DeviceId b = 0; b < devices_; ++b)
      if (const Route* r = (a != b) ? p.route(a, b) : nullptr) {
        mean_route_latency_ += r->latency;
        mean_inverse_bandwidth_ += 1.0 / r->bandwidth;
        ++pairs;
      }
  if (pairs > 0) {
    mean_route_latency_ /= pairs;
    mean_inverse_bandwidth_ /= pairs;
  }
}

std::string CostModel::infeasibility_reason(OpId op, DeviceId dev) const {
  std::string r = structural_reason(op, dev);
  // Finite inputs can still give an op no finite time (a peak of 1e-300 flop/s): say so, not "cannot run".
  if (r.empty() && op_time(op, dev) == kInfeasible)
    r = "op '" + graph_->op(op).name + "' would take longer than any finite time on device '" +
        platform_->devices[static_cast<std::size_t>(dev)].name +
        "' (its throughput or bandwidth is too small)";
  return r;
}

std::string placement_restriction(const Op& o, const Device& d) {
  const auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  if (!listed(o.allowed_kinds, d.kind)) return "op '" + o.name + "' may not run on a " + d.kind;
  if (!listed(o.allowed_devices, d.name))
    return "op '" + o.name + "' is pinned to " + name_list(o.allowed_devices) + ", not '" + d.name + "'";
  return "";
}

std::string CostModel::structural_reason(const Op& o, DeviceId dev) const {
  const Device& d = platform_->devices[static_cast<std::size_t>(dev)];
  if (o.has_explicit_times()) {
    return o.times.count(d.name) ? "" : "op '" + o.name + "' lists no time for device '" + d.name + "'";
  }
  if (auto r = placement_restriction(o, d); !r.empty()) return r;
  if (!d.supports_op(o.kind)) return "device '" + d.name + "' does not run op kind '" + o.kind + "'";
  if (!d.supports_precision(o.precision))
    return "device '" + d.name + "' has no " + o.precision + " throughput for op '" + o.name + "'";
  return "";
}

namespace {

// The bandwidth an op of `kind` moving `bytes` sees: its cache level's in the calibration (else
// `main_memory`), divided by the kind's memory time factor (calibration.hpp; the device's memory family's
// where `system` is its by_memory_type figures).
double calibrated_bandwidth(const Calibration::Entry* cal, const Calibration::Entry::MemorySystem* system,
                            double main_memory, const std::string& kind, double bytes) {
  if (!cal) return main_memory;
  double bandwidth = main_memory;
  for (const auto& tier : cal->memory_tiers)
    if (bytes <= tier.up_to) {
      bandwidth = tier.bandwidth;
      break;
    }
  const auto& factors = system ? system->memory_time_factor : cal->memory_time_factor;
  const auto factor = factors.find(kind);
  return factor == factors.end() ? bandwidth : bandwidth / factor->second;
}

// A GPU's GEMMs, attention products and dimensioned convolutions by the size-aware models a calibration
// names; nullopt for every other op, which the roofline costs.
std::optional<double> size_aware_seconds(const Op& o, const Device& d, const Calibration::Entry& cal) {
  // Convolutions as implicit GEMMs, the form both models were fitted and held out on (DeepBench).
  const auto gemm = gemm_shape_of(o);
  const auto conv = gemm ? std::nullopt : conv_shape_of(o);
  const auto& shape = gemm ? gemm : conv;
  if (!shape || matrix_vector(*shape)) return std::nullopt;
  const WaveDevice device = wave_device(d, o.precision);
  const bool trees = cal.learned && cal.learned->covers(o.precision);
  // A convolution's gradients: by the trees, which were trained on DeepBench's backward passes, where they
  // apply to the device; the wave model alone, fitted on GEMMs, was 45-104 % off on them
  // (docs/calibration.md), so it leaves them to the roofline.
  if (shape->conv_pass != 0 && !(trees && cal.learned->trees_apply(*shape, device))) return std::nullopt;
  if (trees) return cal.learned->seconds(*shape, device, conv.has_value());
  // A precision the trees never saw: the wave model they correct, not an extrapolation of the trees.
  return gemm_wave_time(*shape, device, cal.learned ? cal.learned->wave() : *cal.wave).seconds;
}

} // namespace

double CostModel::roofline(const Op& o, const Device& d) const {
  if (o.has_explicit_times()) return o.times.at(d.name);
  const Calibration::Entry* cal = calibration_.find(d);
  // A kind's efficiency: the calibration's for the kind, else its "default", else the platform's.
  const auto efficiency_of = [&](const std::string& kind) {
    if (cal) {
      if (auto it = cal->compute_efficiency.find(kind); it != cal->compute_efficiency.end())
        return it->second;
      if (auto def = cal->compute_efficiency.find("default"); def != cal->compute_efficiency.end())
        return def->second;
    }
    return d.efficiency_for(kind);
  };
  const double efficiency = efficiency_of(o.kind);
  double memory_efficiency = d.memory_efficiency;
  double launch = d.launch_overhead;
  const Calibration::Entry::MemorySystem* system = cal ? Calibration::memory_system(*cal, d) : nullptr;
  if (cal) {
    if (cal->memory_efficiency) memory_efficiency = *cal->memory_efficiency;
    if (system) memory_efficiency = system->memory_efficiency;
    if (cal->launch_overhead) launch = *cal->launch_overhead;
  }
  if (cal && cal->framework)
    if (const auto t = cal->framework->op_seconds(o, cal->intra_op_threads)) return *t;
  if (cal && (cal->learned || cal->wave) && d.units.count > 0)
    if (const auto t = size_aware_seconds(o, d, *cal)) return *t;
  if (is_synchronisation_kind(o.kind)) launch = 0.0;
  const auto bandwidth_for = [&](double bytes) {
    return calibrated_bandwidth(cal, system, d.memory_bandwidth * memory_efficiency, o.kind, bytes);
  };
  if (cal && cal->gemm_structure) {
    const auto gemm = gemm_shape_of(o);
    auto conv = gemm ? std::nullopt : conv_shape_of(o);
    if (conv && conv->conv_pass != 0)
      conv.reset(); // fitted on forward passes only: gradients keep the roofline
    if (const auto& shape = gemm ? gemm : conv) {
      // A CPU BLAS's loop structure: pack A (for a convolution, the im2col columns, written first; a 1x1,
      // stride-1 convolution reads its input as they are) and B into blocks, then run the packed GEMM.
      // The steps follow one another, so their times add instead of hiding behind the arithmetic.
      const double a = shape->m * shape->k * shape->batch * shape->element_bytes;
      const double b = shape->k * shape->n * shape->batch * shape->element_bytes;
      const bool columns = conv && !(shape->window == 1 && shape->stride <= 1);
      const auto& structure = *cal->gemm_structure;
      const double gemm_efficiency = efficiency_of("gemm");
      const double bytes = o.bytes_moved() + (columns ? a : 0.0);
      return launch + (columns ? a / structure.im2col_bandwidth : 0.0) + (a + b) / structure.pack_bandwidth +
             std::max(o.flops / (d.peak_flops.at(o.precision) * gemm_efficiency),
                      bytes / bandwidth_for(bytes));
    }
  }
  const double compute = o.flops / (d.peak_flops.at(o.precision) * efficiency);
  const double memory = o.bytes_moved() / bandwidth_for(o.bytes_moved());
  return launch + std::max(compute, memory);
}

std::vector<double> CostModel::issue_overheads() const {
  std::vector<double> per_device;
  for (const Device& d : platform_->devices) {
    const Calibration::Entry* cal = calibration_.find(d);
    per_device.push_back(cal && cal->issue_overhead ? *cal->issue_overhead : d.issue_overhead);
  }
  return per_device;
}

IssueCosts CostModel::issue_costs() const {
  IssueCosts costs{issue_overheads(), {}};
  const auto& ops = graph_->ops;
  if (std::any_of(ops.begin(), ops.end(), [](const Op& o) { return o.host_issue > 0.0; }))
    for (const Op& o : ops)
      costs.op.push_back(o.host_issue);
  return costs;
}

double CostModel::op_time(OpId op, DeviceId dev, int pstate) const {
  const double t = op_time(op, dev);
  const auto& states = platform_->devices[static_cast<std::size_t>(dev)].pstates;
  return t * states.front().speed / states.at(static_cast<std::size_t>(pstate)).speed;
}

double transfer_seconds(const Route* route, double bytes, double comm_time) {
  if (comm_time >= 0) return comm_time;
  return route ? route->time(bytes) : kInfeasible;
}

double transfer_seconds(const Platform& p, DeviceId from, DeviceId to, double bytes, double comm_time) {
  if (from == to) return 0.0;
  return transfer_seconds(comm_time >= 0 ? nullptr : p.route(from, to), bytes, comm_time);
}

double CostModel::transfer_time(TensorId t, DeviceId from, DeviceId to) const {
  const Tensor& tensor = graph_->tensor(t);
  return transfer_seconds(*platform_, from, to, tensor.bytes, tensor.comm_time ? *tensor.comm_time : -1.0);
}

double CostModel::mean_op_time(OpId op) const {
  double sum = 0;
  int n = 0;
  for (DeviceId d = 0; d < devices_; ++d)
    if (feasible(op, d)) {
      sum += op_time(op, d);
      ++n;
    }
  return n ? sum / n : kInfeasible;
}

double CostModel::mean_transfer_time(TensorId t) const {
  const Tensor& tensor = graph_->tensor(t);
  if (tensor.comm_time) return *tensor.comm_time;
  summarise_routes();
  return mean_route_latency_ + tensor.bytes * mean_inverse_bandwidth_;
}

} // namespace hs
