#include "policies/pareto/problem.hpp"

#include "policies/policy.hpp"
#include "sim/contention_engine.hpp"

#include <algorithm>
#include <cmath>

namespace hs::pareto {

namespace {
// Demotion is only a choice when precision is an objective (else its cost would be invisible).
ProblemOptions with_demotion_flag(ProblemOptions o) {
  o.encoding.coarsen.allow_demotion =
      std::find(o.objectives.begin(), o.objectives.end(), Objective::Precision) != o.objectives.end();
  return o;
}
} // namespace

ParetoProblem::ParetoProblem(const CostModel& cost, ProblemOptions o)
    : cost_(&cost), options_(with_demotion_flag(std::move(o))), encoding_(cost, options_.encoding),
      base_evaluator_(std::make_shared<ContentionEvaluator>(cost)) {
  // Normalise by the fastest-device plan; a graph no single device can run falls back to HEFT's plan.
  for (const char* name : {"fastest-device", "heft"}) {
    try {
      const Plan plan = policy_by_name(name).plan(PolicyContext{cost, 0});
      const Execution e = run_contention(plan, cost);
      const Scores s = score_execution(plan, cost, e, 0.0, 0.0);
      if (s.latency > 0 && s.energy > 0 && std::isfinite(s.latency)) {
        normalisation_ = {s.latency, s.energy};
        reference_policy_ = name;
        return;
      }
    } catch (const std::exception&) {
    }
  }
  reference_policy_ = "none (1 s, 1 J)";
}

std::vector<double> ParetoProblem::reference_point() const {
  std::vector<double> r;
  for (Objective o : options_.objectives) {
    switch (o) {
    case Objective::Latency:
    case Objective::Energy:
      r.push_back(2.0);
      break;
    case Objective::Memory:
      r.push_back(1.0);
      break;
    case Objective::Precision:
      r.push_back(options_.error_budget > 0 ? options_.error_budget : 1.0);
      break;
    }
  }
  return r;
}

Evaluated ParetoProblem::from_scores(const Scores& s) const {
  return {s, normalise(s, normalisation_, options_.objectives)};
}

Evaluated ParetoProblem::evaluate(const Genome& g) const {
  const Decoded d = encoding_.decode(g);
  ContentionEvaluator& evaluator = evaluator_for(d);
  const Execution& e = evaluator.run(d.plan, false); // transfers in start order: only totals are read
  return from_scores(score_timeline(cost_->platform(), e, evaluator.peak_memory(), d.precision_penalty,
                                    options_.error_budget));
}

// A rewritten graph is evaluated on its flat arrays: the search never builds its Graph.
ContentionEvaluator& ParetoProblem::evaluator_for(const Decoded& d) const {
  if (!d.rewritten) return *base_evaluator_;
  if (!rewritten_evaluator_) rewritten_evaluator_ = std::make_unique<ContentionEvaluator>(*cost_);
  if (bound_model_ != d.rewritten) rewritten_evaluator_->rebind(d.rewritten->flat(), d.rewritten->op_times());
  bound_model_ = d.rewritten;
  return *rewritten_evaluator_;
}

Evaluated ParetoProblem::evaluate_plan(const Plan& plan) const {
  const Execution& e = base_evaluator_->run(plan);
  return from_scores(
      score_execution(plan, *cost_, e, 0.0, options_.error_budget, &base_evaluator_->peak_memory()));
}

std::vector<Baseline> ParetoProblem::baselines(std::uint64_t seed, std::vector<std::string>* skipped) const {
  std::vector<Baseline> out;
  for (const char* name : {"heft", "greedy", "expert-grouping", "fastest-device"}) {
    const Policy* p = policy_registry().find(name);
    if (!p || !p->plans_ahead()) continue;
    try {
      Plan plan = p->plan(PolicyContext{*cost_, seed});
      validate_plan(plan, *cost_);
      Evaluated v = evaluate_plan(plan);
      out.push_back({name, std::move(plan), std::move(v)});
    } catch (const std::exception& e) {
      if (skipped) skipped->push_back(std::string(name) + ": " + e.what());
    }
  }
  return out;
}

} // namespace hs::pareto
