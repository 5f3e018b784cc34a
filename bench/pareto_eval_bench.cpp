// What one evaluation costs inside the Pareto search, against a bare evaluation of the same plans.
//
//   pareto_eval_bench WORKLOAD BUDGET [--no-rewrites]
//
// prints: ops, evaluations, search CPU s per evaluation, then the parts of one evaluation (decode, the
// contention-aware evaluator, scoring with memory) and the ratio search / bare evaluator. The problem
// and the baselines are built before the clock starts (they are planning, not search).
#include "policies/pareto/archive_search.hpp"
#include "sim/contention_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>

using namespace hs;
using namespace hs::pareto;

namespace {
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s WORKLOAD BUDGET [--no-rewrites]\n", argv[0]);
    return 2;
  }
  const bool rewrites = !(argc > 3 && std::strcmp(argv[3], "--no-rewrites") == 0);
  const Platform platform = load_platform("hetero-server");
  const Graph graph = load_workload(argv[1], 1);
  const CostModel cost(graph, platform);
  ProblemOptions po;
  po.encoding.fusion = po.encoding.splitting = rewrites;
  const ParetoProblem problem(cost, po);
  const auto baselines = problem.baselines(1);
  SearchState state(problem, std::atoi(argv[2]));

  const double t0 = cpu_seconds();
  run_archive_search(state, baselines, 1);
  const double search = (cpu_seconds() - t0) / state.evaluations();

  // The same kind of plans, timed part by part: the archive's genomes.
  std::vector<Genome> genomes;
  for (const auto& e : state.archive().entries())
    genomes.push_back(e.genome);
  const int rounds = std::max(1, 200 / static_cast<int>(genomes.size()));
  std::vector<Decoded> decoded;
  double t = cpu_seconds();
  for (int r = 0; r < rounds; ++r)
    for (const auto& g : genomes)
      decoded.push_back(problem.encoding().decode(g));
  const double decode = (cpu_seconds() - t) / static_cast<double>(decoded.size());
  // One evaluator per graph, built before the clock starts (the search reuses them the same way).
  std::map<const CostModel*, std::unique_ptr<ContentionEvaluator>> evaluators;
  for (const auto& d : decoded)
    if (!evaluators.count(&d.cost()))
      evaluators.emplace(&d.cost(), std::make_unique<ContentionEvaluator>(d.cost()));
  double checksum = 0.0;
  t = cpu_seconds();
  for (const auto& d : decoded)
    checksum += evaluators.at(&d.cost())->run(d.plan).makespan;
  const double evaluate = (cpu_seconds() - t) / static_cast<double>(decoded.size());
  std::vector<Execution> runs;
  for (const auto& d : decoded)
    runs.push_back(evaluators.at(&d.cost())->run(d.plan));
  t = cpu_seconds();
  for (std::size_t i = 0; i < decoded.size(); ++i)
    (void)score_execution(decoded[i].plan, decoded[i].cost(), runs[i], 0.0, 0.0);
  const double score = (cpu_seconds() - t) / static_cast<double>(decoded.size());
  std::printf("%s rewrites=%s ops=%d evaluations=%d search_us_per_eval=%.1f decode_us=%.1f evaluator_us=%.1f "
              "score_us=%.1f (memory sorted afterwards; the search takes the evaluator's tracked peaks) "
              "ratio_search_over_evaluator=%.2f\n",
              argv[1], rewrites ? "on" : "off", graph.op_count(), state.evaluations(), 1e6 * search,
              1e6 * decode, 1e6 * evaluate, 1e6 * score, search / evaluate);
  return checksum > 0 ? 0 : 1;
}
