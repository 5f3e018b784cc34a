// gnn-placement on held-out graphs (a family it was not trained on, GPT-2, and a preset it was not trained
// on, hetero-server) against heft, fastest-device and the archive search's best latency plan (latency only,
// placements only, 2000 evaluations), all replayed in SimGrid. Times: gnn-placement's forward pass plus list
// schedule, and the search's run (baselines included), both without the replay. Also the same search with
// the GNN's plan added to its seeds (the learned prior, first form). One CSV row per case.
#include "gnn/proposal.hpp"
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/front_report.hpp"
#include "policies/pareto/search_state.hpp"
#include "policies/policy_runner.hpp"
#include "workloads/workload_registry.hpp"

#include <chrono>
#include <cstdio>
#include <limits>

namespace {

double study_seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double study_replay(const hs::Plan& plan, const hs::CostModel& cost) {
  return hs::execute_plan(plan, cost, {}, "simgrid").execution.makespan;
}

// The archive search's best replayed latency and its search time; with `seed`, the archive is also seeded
// with that plan (the GNN's proposal: the search's mutations then sample its neighbours).
std::pair<double, double> study_search(const hs::CostModel& cost, int budget, const hs::Plan* seed) {
  hs::pareto::ProblemOptions o;
  o.objectives = {hs::pareto::Objective::Latency};
  o.encoding.fusion = false;
  o.encoding.splitting = false;
  const auto start = std::chrono::steady_clock::now();
  const hs::pareto::ParetoProblem problem(cost, o);
  auto baselines = problem.baselines(1);
  if (seed) baselines.push_back({"gnn-placement", *seed, problem.evaluate_plan(*seed)});
  hs::pareto::SearchState state(problem, budget);
  hs::pareto::run_archive_search(state, baselines, 1);
  const double seconds = study_seconds_since(start);
  auto report = hs::pareto::make_front_report(state);
  hs::pareto::replay_in_simgrid(problem, report);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < report.plans.size(); ++i)
    best = std::min(best, hs::pareto::final_value(report, i).scores.latency);
  return {best, seconds};
}

void study_case(const char* workload, const char* platform, const char* held_out, int budget) {
  const hs::Graph g = hs::load_workload(workload, 1);
  const hs::Platform p = hs::load_platform(platform);
  const hs::CostModel cost(g, p);
  const auto start = std::chrono::steady_clock::now();
  const auto proposal = hs::gnn::propose(cost, hs::gnn::shipped_checkpoint_path());
  const double forward_seconds = study_seconds_since(start);
  const hs::Plan gnn = hs::gnn::plan_for_proposal(cost, proposal, "gnn-placement", true);
  const double gnn_seconds = study_seconds_since(start);
  std::fprintf(stderr, "%s on %s: features and forward pass %.4f s, list schedule %.4f s\n", workload, platform,
               forward_seconds, gnn_seconds - forward_seconds);
  const double gnn_latency = study_replay(gnn, cost);
  const auto start2 =
      std::chrono::steady_clock::now(); // the shortlist of two: the network narrows, EFT picks
  const hs::Plan gnn2 = hs::gnn::plan_for_shortlist(
      cost, hs::gnn::propose(cost, hs::gnn::shipped_checkpoint_path()), 2, "gnn-placement", true);
  const double gnn2_seconds = study_seconds_since(start2);
  const double gnn2_latency = study_replay(gnn2, cost);
  const hs::PolicyContext ctx{cost};
  const double heft = hs::execute_policy("heft", ctx, {}, "simgrid").execution.makespan;
  const double fastest = hs::execute_policy("fastest-device", ctx, {}, "simgrid").execution.makespan;
  const auto [search, search_seconds] = study_search(cost, budget, nullptr);
  const auto seeded = study_search(cost, budget, &gnn).first;
  std::printf("\"%s\",%s,\"%s\",%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%.6g,%.6g,%.6f,%.6g,%.4f,%.6f\n",
              workload, platform, held_out, g.op_count(), gnn_latency, heft, fastest, search, seeded,
              gnn_latency / search, heft / search, gnn_seconds, search_seconds, gnn_seconds / search_seconds,
              gnn2_latency, gnn2_latency / search, gnn2_seconds / search_seconds);
  std::fflush(stdout);
}

} // namespace

int main() {
  std::printf(
      "workload,platform,held_out,ops,gnn_s,heft_s,fastest_s,search_best_s,seeded_search_best_s,gnn_"
      "over_search,"
      "heft_over_search,gnn_plan_time_s,search_time_s,gnn_time_over_search,gnn_top2_s,gnn_top2_over_search,"
      "gnn_top2_time_over_search\n");
  const int budget = 2000;
  study_case("gpt2-small:seq=32,decode=2", "workstation", "family", budget);
  study_case("gpt2-small:seq=32,decode=2", "multi-gpu-node", "family", budget);
  study_case("gpt2-small:seq=32,decode=2", "hetero-server", "family+preset", budget);
  study_case("random:ops=60,seed=11", "hetero-server", "preset", budget);
  study_case("random:ops=120,seed=12", "hetero-server", "preset", budget);
  study_case("bert-base:seq=32", "hetero-server", "preset", budget);
  study_case("resnet18:image=64", "hetero-server", "preset", budget);
  study_case("random:ops=60,seed=11", "multi-gpu-node", "graph (same family, other seed)", budget);
  return 0;
}
