#pragma once
// One multi-objective placement problem: the encoding, the objectives, their normalisation and the
// hypervolume reference point, and the evaluation of a genome or of a baseline's plan with the
// contention-aware evaluator (sim/contention_engine.hpp). Both search algorithms and the CLI go through
// this class, so they compare like with like. The final front is judged on the SimGrid replay
// (front_report.hpp).
//
// Hypervolume reference point (documented in README.md): latency 2, energy 2 (twice the fastest-device
// plan's), memory 1 (the capacity), precision = the error budget (or 1 when the budget is 0).
#include "policies/pareto/archive.hpp"
#include "sim/contention_engine.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hs::pareto {

struct ProblemOptions {
  std::vector<Objective> objectives = {Objective::Latency, Objective::Energy, Objective::Memory};
  double error_budget = 0.0;
  EncodingOptions encoding;
};

struct Baseline {
  std::string policy;
  Plan plan;
  Evaluated value;
};

class ParetoProblem {
public:
  ParetoProblem(const CostModel& cost, ProblemOptions o);

  const CostModel& cost() const { return *cost_; }
  const Encoding& encoding() const { return encoding_; }
  const std::vector<Objective>& objectives() const { return options_.objectives; }
  const Normalisation& normalisation() const { return normalisation_; }
  const std::string& reference_policy() const { return reference_policy_; }
  std::vector<double> reference_point() const;
  double error_budget() const { return options_.error_budget; }

  Evaluated evaluate(const Genome& g) const;
  Evaluated evaluate_plan(const Plan& plan) const; // a plan on the original graph, as given
  Evaluated from_scores(const Scores& s) const;

  // heft, greedy, expert-grouping and fastest-device, evaluated; policies that fail on this graph and
  // platform are left out (their error goes to `skipped`).
  std::vector<Baseline> baselines(std::uint64_t seed, std::vector<std::string>* skipped = nullptr) const;

private:
  const CostModel* cost_;
  ProblemOptions options_;
  Encoding encoding_;
  Normalisation normalisation_;
  std::string reference_policy_;
  ContentionEvaluator& evaluator_for(const Decoded& d) const;
  // Reused across evaluations (not thread-safe: one problem per search thread).
  std::shared_ptr<ContentionEvaluator> base_evaluator_;
  // Rewritten graphs share one evaluator, rebound to each in turn (its sharing states stay warm).
  mutable std::unique_ptr<ContentionEvaluator> rewritten_evaluator_;
  mutable std::shared_ptr<const RewrittenModel> bound_model_; // keeps the graph it refers to alive
};

} // namespace hs::pareto
