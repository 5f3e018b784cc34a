#include "policies/pareto/objectives.hpp"

#include "sim/error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace hs::pareto {

std::string objective_name(Objective o) {
  switch (o) {
  case Objective::Latency:
    return "latency";
  case Objective::Energy:
    return "energy";
  case Objective::Memory:
    return "memory";
  case Objective::Precision:
    return "precision";
  }
  return "?";
}

std::optional<Objective> parse_objective(const std::string& name) {
  for (Objective o : {Objective::Latency, Objective::Energy, Objective::Memory, Objective::Precision})
    if (objective_name(o) == name) return o;
  return std::nullopt;
}

std::vector<Objective> parse_objective_list(const std::string& csv, const std::string& option) {
  std::vector<Objective> list;
  std::stringstream in(csv);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto o = parse_objective(item);
    if (!o) throw InputError(option, item, "unknown objective (known: latency, energy, memory, precision)");
    if (std::find(list.begin(), list.end(), *o) != list.end())
      throw InputError(option, item, "objective given twice");
    list.push_back(*o);
  }
  if (list.size() < 2) throw InputError(option, csv, "a Pareto front needs at least two objectives");
  return list;
}

double Scores::raw(Objective o) const {
  switch (o) {
  case Objective::Latency:
    return latency;
  case Objective::Energy:
    return energy;
  case Objective::Memory:
    return memory;
  case Objective::Precision:
    return precision;
  }
  return 0.0;
}

Scores score_execution(const Plan& plan, const CostModel& cost, const Execution& e, double precision_penalty,
                       double error_budget, const std::vector<double>* peak_bytes) {
  if (peak_bytes) return score_timeline(cost.platform(), e, *peak_bytes, precision_penalty, error_budget);
  // Memory of a timeline that never ends is not computed: the plan is infeasible anyway.
  const bool finite = std::isfinite(e.makespan) && std::isfinite(total_energy(e));
  const std::vector<double> peaks = finite ? memory_usage(plan, cost, e).peak : std::vector<double>{};
  return score_timeline(cost.platform(), e, peaks, precision_penalty, error_budget);
}

Scores score_timeline(const Platform& p, const Execution& e, const std::vector<double>& peak_bytes,
                      double precision_penalty, double error_budget) {
  Scores s;
  s.latency = e.makespan;
  s.energy = total_energy(e);
  s.precision = precision_penalty;
  if (!std::isfinite(s.latency) || !std::isfinite(s.energy)) {
    s.feasible = false;
    s.infeasible_because = "a transfer has no route or an op cannot run where it is placed";
    s.memory = kInfeasible;
    return s;
  }
  s.peak_bytes = peak_bytes;
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    s.memory = std::max(s.memory, s.peak_bytes[d] / p.devices[d].memory_capacity);
  if (s.memory > 1.0) {
    s.feasible = false;
    s.infeasible_because = "peak memory exceeds a device's capacity";
  }
  if (precision_penalty > error_budget) {
    s.feasible = false;
    s.infeasible_because = "precision penalty exceeds the error budget";
  }
  return s;
}

std::vector<double> normalise(const Scores& s, const Normalisation& n,
                              const std::vector<Objective>& objectives) {
  std::vector<double> v;
  v.reserve(objectives.size());
  for (Objective o : objectives) {
    switch (o) {
    case Objective::Latency:
      v.push_back(s.latency / n.latency);
      break;
    case Objective::Energy:
      v.push_back(s.energy / n.energy);
      break;
    default:
      v.push_back(s.raw(o));
      break;
    }
  }
  return v;
}

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

} // namespace hs::pareto
