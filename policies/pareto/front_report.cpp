#include "policies/pareto/front_report.hpp"

#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/svg_plot.hpp"
#include "sim/simgrid_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hs::pareto {
namespace {

using OJson = nlohmann::ordered_json;

std::string g6(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string unit_of(Objective o) {
  switch (o) {
  case Objective::Latency:
    return "s";
  case Objective::Energy:
    return "J";
  case Objective::Memory:
    return "fraction of capacity";
  case Objective::Precision:
    return "error-budget units";
  }
  return "";
}

OJson scores_json(const Scores& s, const Platform& p) {
  OJson j;
  j["latency_s"] = s.latency;
  j["energy_j"] = s.energy;
  j["memory_ratio"] = s.memory;
  OJson peaks = OJson::object();
  for (std::size_t d = 0; d < s.peak_bytes.size() && d < p.devices.size(); ++d)
    peaks[p.devices[d].name] = s.peak_bytes[d];
  j["peak_memory_bytes"] = peaks;
  j["precision_penalty"] = s.precision;
  j["feasible"] = s.feasible;
  if (!s.feasible) j["infeasible_because"] = s.infeasible_because;
  return j;
}

// Placement, order and rewrites of one plan, in op and device names.
OJson describe(const ParetoProblem& problem, const Entry& e) {
  const Platform& p = problem.cost().platform();
  const Graph& g = problem.cost().graph();
  const auto dev_name = [&](DeviceId d) { return p.devices[static_cast<std::size_t>(d)].name; };
  OJson j;
  OJson rewrites = {{"fusions", OJson::array()}, {"splits", OJson::array()}, {"demotions", OJson::array()}};
  OJson placement = OJson::object();
  OJson order = OJson::object();
  // Placement grouped by device (a few keys: an object keyed by op would cost O(ops^2) to build).
  std::vector<OJson> by_device(p.devices.size(), OJson::array());
  const Plan* plan = nullptr;
  const Graph* plan_graph = &g;
  Decoded decoded;
  if (e.fixed_plan) {
    plan = &*e.fixed_plan;
    for (OpId x = 0; x < g.op_count(); ++x)
      by_device[static_cast<std::size_t>(plan->device[static_cast<std::size_t>(x)])].push_back(g.op(x).name);
  } else {
    decoded = problem.encoding().decode(e.genome);
    plan = &decoded.plan;
    plan_graph = &decoded.cost().graph();
    const auto& cand = problem.encoding().candidates();
    for (std::size_t f = 0; f < cand.fusions.size(); ++f)
      if (decoded.decision.fuse[f]) {
        OJson chain = OJson::array();
        for (OpId x : cand.fusions[f].chain)
          chain.push_back(g.op(x).name);
        rewrites["fusions"].push_back(chain);
      }
    for (std::size_t s = 0; s < cand.splits.size(); ++s) {
      if (!decoded.decision.split[s]) continue;
      const OpId x = cand.splits[s].op;
      bool fused = false;
      for (std::size_t f = 0; f < cand.fusions.size(); ++f)
        if (decoded.decision.fuse[f] &&
            std::count(cand.fusions[f].chain.begin(), cand.fusions[f].chain.end(), x))
          fused = true;
      if (fused) continue; // fusion wins, as in apply_rewrites
      rewrites["splits"].push_back(
          {{"op", g.op(x).name},
           {"devices",
            {dev_name(decoded.op_device[static_cast<std::size_t>(x)]), dev_name(decoded.split_device[s])}}});
    }
    for (OpId x = 0; x < g.op_count(); ++x) {
      by_device[static_cast<std::size_t>(decoded.op_device[static_cast<std::size_t>(x)])].push_back(
          g.op(x).name);
      const auto& to = decoded.decision.precision[static_cast<std::size_t>(x)];
      if (!to.empty())
        rewrites["demotions"].push_back({{"op", g.op(x).name}, {"from", g.op(x).precision}, {"to", to}});
    }
  }
  for (std::size_t d = 0; d < by_device.size(); ++d)
    if (!by_device[d].empty()) placement[dev_name(static_cast<DeviceId>(d))] = std::move(by_device[d]);
  // A device's queue is one list of op names while it uses its first stream only, else one list per stream
  // (a plan dealt over a GPU's streams must replay as it was scored).
  for (std::size_t d = 0; d < plan->queues.size(); ++d) {
    const auto& streams = plan->queues[d];
    std::size_t used = 0;
    for (std::size_t s = 0; s < streams.size(); ++s)
      if (!streams[s].empty()) used = s + 1;
    if (used == 0) continue;
    const auto names = [&](const std::vector<OpId>& stream) {
      OJson q = OJson::array();
      for (OpId x : stream)
        q.push_back(plan_graph->op(x).name);
      return q;
    };
    OJson q = OJson::array();
    if (used == 1) {
      q = names(streams.front());
    } else {
      for (std::size_t s = 0; s < used; ++s)
        q.push_back(names(streams[s]));
    }
    order[dev_name(static_cast<DeviceId>(d))] = q;
  }
  j["rewrites"] = rewrites;
  j["placement"] = placement;
  j["order"] = order;
  return j;
}

} // namespace

FrontReport make_front_report(const SearchState& state) {
  FrontReport r;
  r.evaluations = state.evaluations();
  r.budget = state.budget();
  r.plans = state.archive().entries();
  std::stable_sort(r.plans.begin(), r.plans.end(),
                   [](const Entry& a, const Entry& b) { return a.value.point < b.value.point; });
  r.simgrid.assign(r.plans.size(), std::nullopt);
  r.history = state.history();
  return r;
}

void replay_in_simgrid(const ParetoProblem& problem, FrontReport& r) {
  const auto replay = [&](const Plan& plan, const CostModel& cost, double penalty) {
    const Execution ex = run_simgrid(plan, cost);
    return problem.from_scores(score_execution(plan, cost, ex, penalty, problem.error_budget()));
  };
  r.simgrid.assign(r.plans.size(), std::nullopt);
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const Entry& e = r.plans[i];
    if (e.fixed_plan) {
      r.simgrid[i] = replay(*e.fixed_plan, problem.cost(), 0.0);
    } else {
      const Decoded d = problem.encoding().decode(e.genome);
      r.simgrid[i] = replay(d.plan, d.cost(), d.precision_penalty);
    }
  }
  r.baselines_simgrid.clear();
  for (const auto& b : r.baselines)
    r.baselines_simgrid.push_back(replay(b.plan, problem.cost(), 0.0));
  // The replay is the judge: keep the members no other member dominates on replayed values.
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const Evaluated& v = *r.simgrid[i];
    std::string why;
    if (!v.scores.feasible) why = "infeasible in the replay (" + v.scores.infeasible_because + ")";
    for (std::size_t k = 0; k < r.plans.size() && why.empty(); ++k) {
      const auto& w = r.simgrid[k]->point;
      if (k != i && r.simgrid[k]->scores.feasible && (dominates(w, v.point) || (w == v.point && k < i)))
        why = "dominated in the replay by the plan from " + r.plans[k].origin;
    }
    if (why.empty())
      keep.push_back(i);
    else
      r.dropped_by_replay.push_back(r.plans[i].origin + ": " + why);
  }
  std::stable_sort(keep.begin(), keep.end(),
                   [&](std::size_t a, std::size_t b) { return r.simgrid[a]->point < r.simgrid[b]->point; });
  std::vector<Entry> plans;
  std::vector<std::optional<Evaluated>> simgrid;
  for (std::size_t i : keep) {
    plans.push_back(std::move(r.plans[i]));
    simgrid.push_back(std::move(r.simgrid[i]));
  }
  r.plans = std::move(plans);
  r.simgrid = std::move(simgrid);
}

const Evaluated& final_value(const FrontReport& r, std::size_t plan) {
  return plan < r.simgrid.size() && r.simgrid[plan] ? *r.simgrid[plan] : r.plans[plan].value;
}

const Evaluated& final_baseline_value(const FrontReport& r, std::size_t baseline) {
  return baseline < r.baselines_simgrid.size() && r.baselines_simgrid[baseline]
             ? *r.baselines_simgrid[baseline]
             : r.baselines[baseline].value;
}

std::string final_engine(const FrontReport& r) {
  return !r.simgrid.empty() && r.simgrid.front() ? "simgrid" : "evaluator";
}

OJson front_json(const ParetoProblem& problem, const FrontReport& r) {
  OJson j;
  j["format"] = "heterosim-pareto-front";
  j["version"] = 1;
  j["platform"] = r.platform;
  j["workload"] = r.workload;
  j["algorithm"] = r.algorithm;
  j["seed"] = r.seed;
  j["budget"] = r.budget;
  j["evaluations"] = r.evaluations;
  OJson objectives = OJson::array();
  for (Objective o : problem.objectives())
    objectives.push_back({{"name", objective_name(o)}, {"unit", unit_of(o)}});
  j["objectives"] = objectives;
  j["normalisation"] = {{"reference_policy", problem.reference_policy()},
                        {"latency_s", problem.normalisation().latency},
                        {"energy_j", problem.normalisation().energy},
                        {"note",
                         "latency and energy over the reference plan's (contention-aware evaluator; for a "
                         "single-device plan it equals the replay); memory is peak/capacity; precision "
                         "as is"}};
  j["error_budget"] = problem.error_budget();
  const auto ref = problem.reference_point();
  std::vector<std::vector<double>> front_points, base_points;
  for (std::size_t i = 0; i < r.plans.size(); ++i)
    front_points.push_back(final_value(r, i).point);
  for (std::size_t b = 0; b < r.baselines.size(); ++b)
    base_points.push_back(final_baseline_value(r, b).point);
  j["hypervolume"] = {{"front", hypervolume(front_points, ref)},
                      {"baselines", hypervolume(base_points, ref)},
                      {"reference_point", ref},
                      {"engine", final_engine(r)}};
  j["front_engine"] = final_engine(r);
  OJson coarse = {{"ops", problem.cost().graph().op_count()},
                  {"super_nodes", problem.encoding().coarse().nodes.size()},
                  {"fusion_candidates", problem.encoding().candidates().fusions.size()},
                  {"split_candidates", problem.encoding().candidates().splits.size()},
                  {"genes", problem.encoding().size()}};
  j["search_space"] = coarse;
  OJson baselines = OJson::array();
  for (std::size_t b = 0; b < r.baselines.size(); ++b) {
    OJson x = {{"policy", r.baselines[b].policy},
               {"normalised", final_baseline_value(r, b).point},
               {"evaluator", scores_json(r.baselines[b].value.scores, problem.cost().platform())}};
    if (b < r.baselines_simgrid.size() && r.baselines_simgrid[b])
      x["simgrid"] = scores_json(r.baselines_simgrid[b]->scores, problem.cost().platform());
    baselines.push_back(x);
  }
  j["baselines"] = baselines;
  if (!r.skipped_baselines.empty()) j["skipped_baselines"] = r.skipped_baselines;
  if (!r.dropped_by_replay.empty()) j["dropped_by_replay"] = r.dropped_by_replay;
  OJson plans = OJson::array();
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const Entry& e = r.plans[i];
    OJson p;
    p["id"] = i;
    p["origin"] = e.origin;
    p["found_at_evaluation"] = e.evaluation;
    p["normalised"] = final_value(r, i).point;
    p["evaluator"] = scores_json(e.value.scores, problem.cost().platform());
    if (i < r.simgrid.size() && r.simgrid[i]) {
      const Scores& sg = r.simgrid[i]->scores;
      p["simgrid"] = scores_json(sg, problem.cost().platform());
      const auto rel = [](double search, double replay) {
        return replay > 0 ? (search - replay) / replay : 0.0;
      };
      p["search_error"] = {{"latency", rel(e.value.scores.latency, sg.latency)},
                           {"energy", rel(e.value.scores.energy, sg.energy)},
                           {"memory", rel(e.value.scores.memory, sg.memory)},
                           {"note", "(evaluator - replay) / replay"}};
    }
    const OJson d = describe(problem, e);
    for (const auto& [k, v] : d.items())
      p[k] = v;
    plans.push_back(p);
  }
  j["plans"] = plans;
  if (r.weighted) j["weighted_sum"] = {{"weights", r.weights}, {"plan", *r.weighted}};
  return j;
}

std::string front_csv(const ParetoProblem& problem, const FrontReport& r) {
  std::ostringstream s;
  s << "id,origin,evaluator_latency_s,evaluator_energy_j,evaluator_memory_ratio,precision_penalty";
  for (Objective o : problem.objectives())
    s << ",norm_" << objective_name(o);
  s << ",simgrid_latency_s,simgrid_energy_j,simgrid_memory_ratio\n";
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const auto& e = r.plans[i];
    const auto& sc = e.value.scores;
    s << i << ',' << e.origin << ',' << g6(sc.latency) << ',' << g6(sc.energy) << ',' << g6(sc.memory) << ','
      << g6(sc.precision);
    for (double v : final_value(r, i).point)
      s << ',' << g6(v);
    if (i < r.simgrid.size() && r.simgrid[i])
      s << ',' << g6(r.simgrid[i]->scores.latency) << ',' << g6(r.simgrid[i]->scores.energy) << ','
        << g6(r.simgrid[i]->scores.memory);
    else
      s << ",,,";
    s << '\n';
  }
  return s.str();
}

std::string history_csv(const FrontReport& r) {
  std::ostringstream s;
  s << "evaluations,hypervolume,front_size\n";
  for (const auto& h : r.history)
    s << h.evaluations << ',' << g6(h.hypervolume) << ',' << h.front_size << '\n';
  return s.str();
}

std::string front_table(const ParetoProblem& problem, const FrontReport& r) {
  std::ostringstream s;
  char line[256];
  const std::string engine = final_engine(r);
  s << "values from the "
    << (engine == "simgrid" ? "SimGrid replay" : "contention-aware evaluator (not replayed)")
    << "; search err = evaluator latency vs replay\n";
  std::snprintf(line, sizeof line, "%4s  %-22s %12s %12s %9s %9s %9s %11s\n", "id", "origin", "latency_s",
                "energy_j", "memory", "lat/ref", "en/ref", "search err");
  s << line;
  const auto& n = problem.normalisation();
  auto row = [&](const std::string& id, const std::string& origin, const Evaluated& searched,
                 const Evaluated& judged, bool replayed) {
    const Scores& sc = judged.scores;
    char err[32] = "-";
    if (replayed && sc.latency > 0)
      std::snprintf(err, sizeof err, "%+.2f%%", 100.0 * (searched.scores.latency - sc.latency) / sc.latency);
    std::snprintf(line, sizeof line, "%4s  %-22s %12.6g %12.6g %9.4f %9.4f %9.4f %11s\n", id.c_str(),
                  origin.substr(0, 22).c_str(), sc.latency, sc.energy, sc.memory, sc.latency / n.latency,
                  sc.energy / n.energy, err);
    s << line;
  };
  for (std::size_t i = 0; i < r.plans.size(); ++i)
    row(std::to_string(i), r.plans[i].origin, r.plans[i].value, final_value(r, i), engine == "simgrid");
  s << "baselines:\n";
  for (std::size_t b = 0; b < r.baselines.size(); ++b)
    row("-", r.baselines[b].policy, r.baselines[b].value, final_baseline_value(r, b), engine == "simgrid");
  if (!r.dropped_by_replay.empty())
    s << r.dropped_by_replay.size()
      << " searched plan(s) dropped: the replay showed them dominated or infeasible\n";
  return s.str();
}

std::vector<std::pair<std::string, std::string>> front_plots(const ParetoProblem& problem,
                                                             const FrontReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& objs = problem.objectives();
  for (std::size_t a = 0; a < objs.size(); ++a)
    for (std::size_t b = a + 1; b < objs.size(); ++b) {
      const auto label = [&](std::size_t k) {
        const Objective o = objs[k];
        if (o == Objective::Latency || o == Objective::Energy)
          return objective_name(o) + " / " + problem.reference_policy() + "'s";
        return objective_name(o) + " (" + unit_of(o) + ")";
      };
      std::vector<FrontPoint> front;
      std::vector<LabelledPoint> base;
      for (std::size_t i = 0; i < r.plans.size(); ++i) {
        FrontPoint p{std::to_string(i), "plan " + std::to_string(i) + " (" + r.plans[i].origin + ")",
                     final_value(r, i).point[a], final_value(r, i).point[b], std::nullopt};
        if (i < r.simgrid.size() && r.simgrid[i])
          p.searched = std::make_pair(r.plans[i].value.point[a], r.plans[i].value.point[b]);
        front.push_back(std::move(p));
      }
      for (std::size_t k = 0; k < r.baselines.size(); ++k)
        base.push_back({r.baselines[k].policy, final_baseline_value(r, k).point[a],
                        final_baseline_value(r, k).point[b]});
      const std::string stem = objective_name(objs[a]) + "-" + objective_name(objs[b]);
      out.emplace_back(stem,
                       scatter_svg(r.workload + " on " + r.platform + ": " + objective_name(objs[a]) +
                                       " vs " + objective_name(objs[b]) +
                                       (final_engine(r) == "simgrid" ? " (SimGrid replay)" : " (evaluator)"),
                                   label(a), label(b), front, base));
    }
  return out;
}

} // namespace hs::pareto
