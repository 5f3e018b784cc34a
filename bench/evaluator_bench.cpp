// Throughput of the contention-aware evaluator (sim/contention_engine.hpp), with the contention-free
// analytic engine on the same plan as the baseline.
//
//   evaluator_bench heft|fastest-per-op OPS [SEED [CALLS]]
//
// With CALLS, it only makes CALLS evaluations (run()) and prints nothing: a fixed amount of work for a
// profiler (`valgrind --tool=callgrind`, perf) to count.
//
// builds random:ops=OPS,precision=fp16 on hetero-server, plans it (heft, or each op on its fastest device
// in topological order: cheap enough for 100k ops) and prints one line:
//   plan ops transfers evaluations evaluator_cpu_s op_evals_per_cpu_s evaluator_ns_per_op
//   makespan_only_ns_per_op analytic_ns_per_op evaluator_over_analytic
// where op_evals_per_cpu_s = ops x evaluations / CPU second of ContentionEvaluator::run(), one evaluator
// reused for every evaluation (as a search's inner loop uses it); makespan_only is
// ContentionEvaluator::makespan() (no energy, no sorted transfers). Planning is not timed. Each measurement
// repeats until it has used at least 1 CPU second (at least 3 evaluations). bench/run_evaluator_bench.sh
// runs the sizes and prints the figures.
#include "bench/bench_plans.hpp"
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>

using namespace hs;

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

using bench::fastest_per_op;

struct Timing {
  long evaluations = 0;
  double cpu = 0.0;
  double per_evaluation() const { return cpu / static_cast<double>(evaluations); }
};

// Calls f() until at least `min_cpu` CPU seconds and 3 calls have passed. `sink` keeps results alive.
template <class F> Timing measure(F&& f, double& sink, double min_cpu = 1.0) {
  f(); // warm-up: buffers sized, caches filled
  Timing t;
  const double t0 = cpu_seconds();
  do {
    sink += f();
    ++t.evaluations;
    t.cpu = cpu_seconds() - t0;
  } while (t.cpu < min_cpu || t.evaluations < 3);
  return t;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "heft") != 0 && std::strcmp(argv[1], "fastest-per-op") != 0)) {
    std::fprintf(stderr, "usage: %s heft|fastest-per-op OPS [SEED [CALLS]]\n", argv[0]);
    return 2;
  }
  try {
    const std::string which = argv[1];
    const int ops = std::stoi(argv[2]);
    const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
    const Platform platform = load_platform("hetero-server");
    const Graph g = load_workload("random:ops=" + std::to_string(ops) + ",precision=fp16", seed);
    const CostModel cost(g, platform);
    const Plan plan = which == "heft" ? policy_by_name("heft").plan({cost, seed}) : fastest_per_op(cost);
    validate_plan(plan, cost);

    ContentionEvaluator evaluator(cost);
    if (argc > 4) {
      double sum = 0.0;
      for (int calls = std::atoi(argv[4]); calls > 0; --calls)
        sum += evaluator.run(plan).makespan;
      return sum > 0 ? 0 : 1;
    }
    const std::size_t transfers = evaluator.run(plan).transfers.size();
    double sink = 0.0;
    const Timing full = measure([&] { return evaluator.run(plan).makespan; }, sink);
    const Timing only = measure([&] { return evaluator.makespan(plan); }, sink);
    const Timing analytic = measure([&] { return run_analytic(plan, cost).makespan; }, sink);
    const double n = static_cast<double>(g.op_count());
    std::printf("%s %d %zu %ld %.3f %.0f %.1f %.1f %.1f %.2f\n", which.c_str(), g.op_count(), transfers,
                full.evaluations, full.cpu, n * static_cast<double>(full.evaluations) / full.cpu,
                1e9 * full.per_evaluation() / n, 1e9 * only.per_evaluation() / n,
                1e9 * analytic.per_evaluation() / n, full.per_evaluation() / analytic.per_evaluation());
    if (sink < 0) std::printf("%g\n", sink); // never: keeps the evaluations from being optimised away
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evaluator_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
