#pragma once
// What the Pareto search minimises, and how the values are made comparable. Raw values are latency
// (makespan, s), energy (J, devices and links), memory (max over devices of peak / capacity) and a
// precision penalty (sum over demoted ops of sensitivity x the fraction of bits lost). The search
// compares normalised values: latency and energy over those of the fastest-device plan (the whole graph
// on the single fastest device, the project's reference baseline), memory and precision as they are
// (memory is already a fraction of capacity; precision is compared with its error budget).
#include "sim/execution.hpp"
#include "sim/memory.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs::pareto {

enum class Objective { Latency, Energy, Memory, Precision };

std::string objective_name(Objective o);
std::optional<Objective> parse_objective(const std::string& name);
// "latency,energy,memory": throws InputError naming `option` for unknown or repeated names.
std::vector<Objective> parse_objective_list(const std::string& csv, const std::string& option);

struct Scores {
  double latency = 0.0;           // seconds
  double energy = 0.0;            // joules
  double memory = 0.0;            // max over devices of peak / capacity
  double precision = 0.0;         // error-budget units
  std::vector<double> peak_bytes; // per device, as the memory objective saw them
  bool feasible = true;
  std::string infeasible_because;

  double raw(Objective o) const;
};

// Scores of a timeline: over-capacity memory, non-finite times and an exceeded error budget make the
// plan infeasible (it keeps its values, so callers can still say by how much). `peak_bytes`, when given,
// are the timeline's peaks already computed (the evaluator tracks them); else memory_usage() computes them.
Scores score_execution(const Plan& plan, const CostModel& cost, const Execution& e, double precision_penalty,
                       double error_budget, const std::vector<double>* peak_bytes = nullptr);
// The same with the peaks given: needs no graph (the search scores rewrites it never built a Graph for).
Scores score_timeline(const Platform& p, const Execution& e, const std::vector<double>& peak_bytes,
                      double precision_penalty, double error_budget);

struct Normalisation {
  double latency = 1.0; // fastest-device plan's makespan
  double energy = 1.0;  // fastest-device plan's energy
};

std::vector<double> normalise(const Scores& s, const Normalisation& n,
                              const std::vector<Objective>& objectives);

// Pareto dominance for minimisation: a is no worse everywhere and better somewhere.
bool dominates(const std::vector<double>& a, const std::vector<double>& b);

} // namespace hs::pareto
