#include "validation/roofline_fit.hpp"

#include "sim/json_input.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace hs::validation {

double RooflineFit::predict(const FitPoint& p) const {
  const bool structured = p.pack_bytes > 0 && gemm_structure;
  auto it = efficiency.find(structured ? "gemm" : p.kind);
  const double e = it == efficiency.end() ? 1.0 : it->second;
  const double compute = p.flops / (p.peak_flops * e);
  const double bytes = p.bytes + (structured ? p.im2col_bytes : 0.0);
  double bandwidth = p.bandwidth * memory_efficiency;
  for (const auto& tier : memory_tiers)
    if (bytes <= tier.up_to) {
      bandwidth = tier.bandwidth;
      break;
    }
  const double copies = structured ? p.im2col_bytes / gemm_structure->im2col_bandwidth +
                                         p.pack_bytes / gemm_structure->pack_bandwidth
                                   : 0.0;
  const auto factor = memory_time_factor.find(p.kind);
  const double memory = bytes / bandwidth * (factor == memory_time_factor.end() ? 1.0 : factor->second);
  return launch_overhead + copies + std::max(compute, memory);
}

double datasheet_prediction(const FitPoint& p) {
  return std::max(p.flops / p.peak_flops, p.bytes / p.bandwidth);
}

Calibration::Entry RooflineFit::as_calibration_entry() const {
  Calibration::Entry e;
  e.name = "fit";
  e.compute_efficiency = efficiency;
  e.memory_efficiency = memory_efficiency;
  e.memory_time_factor = memory_time_factor;
  e.launch_overhead = launch_overhead;
  e.memory_tiers = memory_tiers;
  e.gemm_structure = gemm_structure;
  return e;
}

namespace {

// min ||A x - b|| subject to x >= lower, by fixing violating unknowns at their bound and solving again
// (enough here: a handful of unknowns, and a bound is rarely active).
Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                      const Eigen::VectorXd& lower) {
  const Eigen::Index n = a.cols();
  std::vector<bool> fixed(static_cast<std::size_t>(n), false);
  Eigen::VectorXd x = lower;
  for (Eigen::Index round = 0; round <= n; ++round) {
    std::vector<Eigen::Index> free;
    Eigen::VectorXd rhs = b;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (fixed[static_cast<std::size_t>(j)])
        rhs -= a.col(j) * lower(j);
      else
        free.push_back(j);
    }
    if (free.empty()) break;
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(free.size()));
    for (std::size_t c = 0; c < free.size(); ++c)
      sub.col(static_cast<Eigen::Index>(c)) = a.col(free[c]);
    const Eigen::VectorXd y = sub.colPivHouseholderQr().solve(rhs);
    Eigen::Index worst = -1;
    double worst_gap = 0;
    for (std::size_t c = 0; c < free.size(); ++c) {
      const Eigen::Index j = free[c];
      x(j) = y(static_cast<Eigen::Index>(c));
      const double gap = (lower(j) - x(j)) / std::max(1.0, std::abs(lower(j)));
      if (!(x(j) >= lower(j)) && gap > worst_gap) {
        worst_gap = gap;
        worst = j;
      }
    }
    if (worst < 0) break;
    fixed[static_cast<std::size_t>(worst)] = true;
    x(worst) = lower(worst);
  }
  for (Eigen::Index j = 0; j < n; ++j)
    x(j) = std::max(x(j), lower(j));
  return x;
}

// The fit for fixed memory time factors (`factors`, per kind; 1 where absent).
RooflineFit fit_given_factors(const std::vector<FitPoint>& points,
                              const std::vector<std::string>& compute_kinds,
                              const std::vector<double>& tier_bounds,
                              const std::map<std::string, double>& factors) {
  RooflineFit fit;
  fit.memory_time_factor = factors;
  const auto factor_of = [&](const std::string& kind) {
    const auto f = factors.find(kind);
    return f == factors.end() ? 1.0 : f->second;
  };
  // Memory column of each point: 0 main memory, 1 + t for tier t.
  std::vector<std::size_t> tier_of(points.size(), 0);
  std::vector<bool> tier_used(tier_bounds.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t t = 0; t < tier_bounds.size(); ++t)
      if (points[i].bytes <= tier_bounds[t]) {
        tier_of[i] = 1 + t;
        break;
      }
  std::vector<bool> compute(points.size());
  bool any_structured = false, any_im2col = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    compute[i] = points[i].flops > 0 &&
                 std::find(compute_kinds.begin(), compute_kinds.end(), points[i].kind) != compute_kinds.end();
    any_structured = any_structured || points[i].pack_bytes > 0;
    any_im2col = any_im2col || points[i].im2col_bytes > 0;
  }
  // A structured convolution's GEMM shares the GEMMs' efficiency; packing and im2col have columns of their
  // own.
  const auto compute_kind = [&](const FitPoint& p) {
    return p.pack_bytes > 0 ? std::string("gemm") : p.kind;
  };
  const auto tiers = static_cast<Eigen::Index>(tier_bounds.size());
  for (int iteration = 1; iteration <= 20; ++iteration) {
    fit.iterations = iteration;
    // Unknowns: [launch, nominal/main-memory bandwidth, nominal/tier bandwidth..., nominal/compute per
    // kind...].
    std::map<std::string, Eigen::Index> column;
    for (std::size_t i = 0; i < points.size(); ++i)
      if ((compute[i] || points[i].pack_bytes > 0) && !column.count(compute_kind(points[i])))
        column.emplace(compute_kind(points[i]), 0);
    Eigen::Index next = 2 + tiers;
    for (auto& [kind, c] : column)
      c = next++;
    const Eigen::Index pack_column = any_structured ? next++ : -1;
    const Eigen::Index im2col_column = any_im2col ? next++ : -1;
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(points.size()), next);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(points.size()));
    bool any_memory = false;
    std::fill(tier_used.begin(), tier_used.end(), false);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      const auto r = static_cast<Eigen::Index>(i);
      a(r, 0) = 1.0 / p.seconds;
      if (p.pack_bytes > 0) {
        a(r, column.at("gemm")) = p.flops / p.peak_flops / p.seconds;
        a(r, pack_column) = p.pack_bytes / p.bandwidth / p.seconds;
        if (p.im2col_bytes > 0) a(r, im2col_column) = p.im2col_bytes / p.bandwidth / p.seconds;
      } else if (compute[i]) {
        a(r, column.at(p.kind)) = p.flops / p.peak_flops / p.seconds;
      } else {
        a(r, 1 + static_cast<Eigen::Index>(tier_of[i])) =
            factor_of(p.kind) * p.bytes / p.bandwidth / p.seconds;
        if (tier_of[i] == 0)
          any_memory = true;
        else
          tier_used[tier_of[i] - 1] = true;
      }
    }
    Eigen::VectorXd lower = Eigen::VectorXd::Ones(next);
    lower(0) = 0.0;
    for (Eigen::Index t = 0; t < tiers; ++t)
      lower(2 + t) = 1e-3; // a cache may beat the nominal bandwidth
    // The copies may run from cache, faster than main memory.
    if (any_structured) lower(pack_column) = 1e-3;
    if (any_im2col) lower(im2col_column) = 1e-3;
    // Iteratively reweighted least squares towards the least absolute relative error (the MAPE that the
    // report shows): rows are weighted by 1/sqrt(|residual|), so outliers pull less than in plain least
    // squares.
    Eigen::VectorXd x = bounded_least_squares(a, b, lower);
    for (int irls = 0; irls < 15; ++irls) {
      const Eigen::ArrayXd residual = (a * x - b).array().abs().max(1e-4);
      const Eigen::VectorXd w = residual.rsqrt().matrix();
      x = bounded_least_squares(w.asDiagonal() * a, w.asDiagonal() * b, lower);
    }
    fit.launch_overhead = x(0);
    fit.memory_efficiency = any_memory ? 1.0 / x(1) : 1.0;
    fit.memory_tiers.clear();
    const double nominal = points.front().bandwidth;
    for (Eigen::Index t = 0; t < tiers; ++t)
      if (tier_used[static_cast<std::size_t>(t)])
        fit.memory_tiers.push_back({tier_bounds[static_cast<std::size_t>(t)], nominal / x(2 + t)});
    fit.efficiency.clear();
    for (const auto& [kind, c] : column)
      fit.efficiency[kind] = 1.0 / x(c);
    if (any_structured) {
      const double nominal_bandwidth = points.front().bandwidth;
      fit.gemm_structure = Calibration::Entry::GemmStructure{nominal_bandwidth / x(pack_column),
                                                             any_im2col ? nominal_bandwidth / x(im2col_column)
                                                                        : nominal_bandwidth};
    }
    // Reassign each point to the bound the fitted model says limits it.
    bool changed = false;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      if (p.pack_bytes > 0) continue; // always its copies plus its GEMM
      auto it = fit.efficiency.find(p.kind);
      if (it == fit.efficiency.end()) continue; // kind has no compute-bound point: stays memory-bound
      FitPoint memory_only = p;
      memory_only.flops = 0;
      const double memory_time = fit.predict(memory_only) - fit.launch_overhead;
      const bool is_compute = p.flops / (p.peak_flops * it->second) >= memory_time;
      if (is_compute != compute[i]) {
        compute[i] = is_compute;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return fit;
}

// The summed relative error of `fit` over `points` (what the IRLS fit drives towards its least).
double summed_relative_error(const std::vector<FitPoint>& points, const RooflineFit& fit) {
  double sum = 0;
  for (const auto& p : points)
    sum += std::abs(fit.predict(p) / p.seconds - 1);
  return sum;
}

// Memory-bound points per kind under `fit` (structured GEMMs excluded: their memory term is not the kind's).
std::map<std::string, int> memory_bound_counts(const std::vector<FitPoint>& points, const RooflineFit& fit) {
  std::map<std::string, int> counts;
  for (const auto& p : points) {
    if (p.pack_bytes > 0) continue;
    FitPoint memory_only = p;
    memory_only.flops = 0;
    const double memory = fit.predict(memory_only) - fit.launch_overhead;
    const auto e = fit.efficiency.find(p.kind);
    if (e == fit.efficiency.end() || p.flops / (p.peak_flops * e->second) < memory) ++counts[p.kind];
  }
  return counts;
}

} // namespace

// The factors are found by variable projection: for given factors the rest is the linear fit above, so each
// factor in turn is moved (a golden-section search on its logarithm, the rest refitted at every trial) to
// where the summed relative error is least; a few sweeps. Then they are normalised so that the memory-bound
// points' factors have geometric mean 1 (a common scale belongs to the bandwidths) and the rest refitted.
RooflineFit fit_roofline(const std::vector<FitPoint>& points, const std::vector<std::string>& compute_kinds,
                         const std::vector<double>& tier_bounds) {
  if (points.empty()) return {};
  std::map<std::string, double> factors;
  const RooflineFit plain = fit_given_factors(points, compute_kinds, tier_bounds, factors);
  const auto counts = memory_bound_counts(points, plain);
  for (const auto& [kind, n] : counts)
    if (n >= kMinFactorPoints) factors[kind] = 1.0;
  if (factors.empty()) return plain;
  const auto error_with = [&](const std::map<std::string, double>& g) {
    return summed_relative_error(points, fit_given_factors(points, compute_kinds, tier_bounds, g));
  };
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double current = summed_relative_error(points, plain); // the error at the factors as they stand
  for (int sweep = 0; sweep < 3; ++sweep)
    for (auto& [kind, g] : factors) {
      double lo = std::log(g) - 1.0, hi = std::log(g) + 1.0; // within e^-1 .. e of where it stands
      const std::string& name = kind; // a lambda may not capture a structured binding (clang before 16)
      const auto at = [&](double x) {
        auto trial = factors;
        trial[name] = std::exp(x);
        return error_with(trial);
      };
      double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
      double fa = at(a), fb = at(b);
      for (int step = 0; step < 30; ++step) {
        if (fa <= fb) {
          hi = b;
          b = a;
          fb = fa;
          a = hi - ratio * (hi - lo);
          fa = at(a);
        } else {
          lo = a;
          a = b;
          fa = fb;
          b = lo + ratio * (hi - lo);
          fb = at(b);
        }
      }
      if (std::min(fa, fb) < current) {
        g = std::exp(fa <= fb ? a : b);
        current = std::min(fa, fb);
      }
    }
  double log_sum = 0, memory_points = 0;
  for (const auto& [kind, n] :
       memory_bound_counts(points, fit_given_factors(points, compute_kinds, tier_bounds, factors))) {
    const auto f = factors.find(kind);
    log_sum += n * (f == factors.end() ? 0.0 : std::log(f->second));
    memory_points += n;
  }
  const double mean = memory_points > 0 ? std::exp(log_sum / memory_points) : 1.0;
  for (auto& [kind, g] : factors)
    g /= mean;
  return fit_given_factors(points, compute_kinds, tier_bounds, factors);
}

namespace {

// The roofline parameters of `f` as a calibration entry's fields.
void add_roofline(Json& d, const RooflineFit& f) {
  d["efficiency"] = f.efficiency;
  d["memory_efficiency"] = f.memory_efficiency;
  if (!f.memory_time_factor.empty()) d["memory_time_factor"] = f.memory_time_factor;
  d["launch_overhead"] = f.launch_overhead;
  if (f.gemm_structure)
    d["gemm_structure"] = {{"method", "packed"},
                           {"pack_bandwidth", f.gemm_structure->pack_bandwidth},
                           {"im2col_bandwidth", f.gemm_structure->im2col_bandwidth}};
  if (!f.memory_tiers.empty()) {
    d["memory_tiers"] = Json::array();
    for (const auto& t : f.memory_tiers)
      d["memory_tiers"].push_back({{"up_to", t.up_to}, {"bandwidth", t.bandwidth}});
  }
}

} // namespace

Json memory_systems_json(const std::map<std::string, Calibration::Entry::MemorySystem>& systems) {
  Json j = Json::object();
  for (const auto& [type, system] : systems)
    j[type] = {{"memory_efficiency", system.memory_efficiency},
               {"memory_time_factor", system.memory_time_factor}};
  return j;
}

std::string calibration_json(const std::vector<CalibrationOut>& entries, const std::string& source,
                             const std::string& notes) {
  Json j;
  j["format"] = "heterosim-calibration";
  j["version"] = 2;
  j["source"] = source;
  j["notes"] = notes;
  j["entries"] = Json::array();
  for (const auto& e : entries) {
    Json d;
    d["name"] = e.name;
    Json to = Json::object();
    if (!e.applies_to.devices.empty()) to["devices"] = e.applies_to.devices;
    if (!e.applies_to.kinds.empty()) to["kinds"] = e.applies_to.kinds;
    if (!e.applies_to.models.empty()) to["models"] = e.applies_to.models;
    if (e.applies_to.optional) to["optional"] = true;
    d["applies_to"] = std::move(to);
    d["measured"] = e.measured;
    if (e.held_out_mape_percent) d["held_out_mape_percent"] = *e.held_out_mape_percent;
    if (!e.held_out_mape_percent_by_model.empty())
      d["held_out_mape_percent_by_model"] = e.held_out_mape_percent_by_model;
    if (e.wave_held_out_mape_percent) d["wave_held_out_mape_percent"] = *e.wave_held_out_mape_percent;
    if (!e.wave_held_out_mape_percent_by_model.empty())
      d["wave_held_out_mape_percent_by_model"] = e.wave_held_out_mape_percent_by_model;
    if (e.roofline) add_roofline(d, e.fit);
    if (!e.roofline && e.memory_efficiency) d["memory_efficiency"] = *e.memory_efficiency;
    if (!e.roofline && !e.memory_time_factor.empty()) d["memory_time_factor"] = e.memory_time_factor;
    if (!e.by_memory_type.empty()) d["by_memory_type"] = memory_systems_json(e.by_memory_type);
    if (!e.memory_held_out_mape_percent.empty())
      d["memory_held_out_mape_percent"] = e.memory_held_out_mape_percent;
    if (e.issue_overhead) d["issue_overhead"] = *e.issue_overhead;
    if (e.wave)
      d["wave_model"] = {{"peak_efficiency", e.wave->peak_efficiency},
                         {"tile_intensity_knee", e.wave->tile_intensity_knee},
                         {"memory_efficiency", e.wave->memory_efficiency},
                         {"launch_overhead", e.wave->launch_seconds},
                         {"watts_per_tflops", e.wave->watts_per_tflops},
                         {"transposed_a_efficiency", e.wave->transposed_a_efficiency},
                         {"tile_k_overhead", e.wave->tile_k_overhead}};
    if (!e.learned_model.empty()) d["learned_model"] = e.learned_model;
    if (!e.framework_model.empty()) {
      d["framework_model"] = e.framework_model;
      d["intra_op_threads"] = e.intra_op_threads;
    }
    j["entries"].push_back(std::move(d));
  }
  return j.dump(1) + "\n";
}

} // namespace hs::validation
