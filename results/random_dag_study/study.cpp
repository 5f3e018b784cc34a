// Random-DAG study: the standard metrics of the list-scheduling literature, averaged over a seeded suite,
// for every policy (static ones on the analytic engine, as the literature's contention-free model;
// run-time ones on the SimGrid replay, which they need). Graphs are explicit-cost random DAGs generated as
// in Topcuoglu, Hariri and Wu (IEEE TPDS 13(3), 2002, section 6.1): v ops in about sqrt(v)/alpha levels,
// mean computation cost w_i drawn from U[0, 2 w_dag], per-processor costs from
// U[w_i (1 - beta/2), w_i (1 + beta/2)] (beta = heterogeneity), and edge costs with mean CCR x w_dag.
//   SLR        = makespan / sum over the critical path (by minimum costs) of each op's minimum cost
//   speedup    = best single-processor sequential time / makespan
//   efficiency = speedup / processors
// Usage: random_dag_study OUT.csv SUMMARY.md   (one CSV row per graph and policy; the summary averages them)
#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"
#include "sim/random.hpp"
#include "sim/simgrid_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace hs;

namespace {

struct Shape {
  int ops;
  double ccr;
  double alpha = 1.0;
  double out_degree = 3.0;
  double beta = 0.5;
  std::uint64_t seed;
};

// "n12", "P3": built without operator+ on a literal, which GCC 12 warns about wrongly (-Wrestrict).
std::string label(char prefix, int i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

Platform processors(int n) {
  std::string devices;
  for (int i = 0; i < n; ++i)
    devices += std::string(i ? "," : "") + R"({"name": ")" + label('P', i + 1) +
               R"(", "kind": "textbook", "memory": {"bandwidth": "1GBps", "capacity": "1TB"},
                  "power": {"idle": "0W", "busy": "1W"}, "copy_engines": 64})";
  // A placeholder link per pair, as platforms/textbook-3p.json has: textbook edges carry their own cost and
  // never use it, but every pair of devices needs a route.
  std::string links, routes;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const std::string name = label('P', i + 1) + "-" + label('P', j + 1);
      links += std::string(links.empty() ? "" : ",") + R"({"name": ")" + name + R"(", "bandwidth": "1GBps"})";
      routes += std::string(routes.empty() ? "" : ",") + R"({"from": ")" + label('P', i + 1) +
                R"(", "to": ")" + label('P', j + 1) + R"(", "links": [")" + name + R"("]})";
    }
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "textbook-)" +
                            std::to_string(n) + R"(p", "devices": [)" + devices + R"(], "links": [)" + links +
                            R"(], "routes": [)" + routes + "]}",
                        "generated");
}

Graph textbook_dag(const Shape& s, int processors_count) {
  Rng rng(s.seed);
  const double w_dag = 50.0;
  char name[96];
  std::snprintf(name, sizeof name, "tdag-v%d-ccr%g-s%llu", s.ops, s.ccr,
                static_cast<unsigned long long>(s.seed));
  GraphBuilder b(name);
  const double mean_width = std::max(1.0, std::sqrt(static_cast<double>(s.ops)) * s.alpha);
  std::vector<OpId> previous, current;
  int made = 0;
  while (made < s.ops) {
    const int width = std::min(
        s.ops - made, static_cast<int>(rng.integer(
                          1, std::max<std::int64_t>(1, static_cast<std::int64_t>(2 * mean_width - 1)))));
    current.clear();
    for (int i = 0; i < width; ++i) {
      auto h = b.op(label('n', made++));
      const double w = rng.uniform(0.1, 2 * w_dag);
      for (int p = 0; p < processors_count; ++p)
        h.time_on(label('P', p + 1), rng.uniform(w * (1 - s.beta / 2), w * (1 + s.beta / 2)));
      current.push_back(h.id());
    }
    if (!previous.empty()) {
      std::set<std::pair<OpId, OpId>> edges;
      const auto link = [&](OpId parent, OpId child) {
        if (edges.insert({parent, child}).second)
          b.handle(parent).feeds_in(b.handle(child), rng.uniform(0, 2 * s.ccr * w_dag));
      };
      for (OpId c : current) // every op has at least one parent
        link(previous[static_cast<std::size_t>(
                 rng.integer(0, static_cast<std::int64_t>(previous.size()) - 1))],
             c);
      for (OpId parent : previous) {
        const int extra = static_cast<int>(rng.integer(0, static_cast<std::int64_t>(s.out_degree) - 1));
        for (int k = 0; k < extra; ++k)
          link(parent, current[static_cast<std::size_t>(
                           rng.integer(0, static_cast<std::int64_t>(current.size()) - 1))]);
      }
    }
    previous = current;
  }
  return std::move(b).build();
}

double critical_path_of_minimum_costs(const CostModel& cost) {
  const Graph& g = cost.graph();
  std::vector<double> longest(static_cast<std::size_t>(g.op_count()), 0.0);
  double best = 0;
  for (OpId o : g.topological_order()) {
    double w = kInfeasible;
    for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
      w = std::min(w, cost.op_time(o, d));
    double before = 0;
    for (OpId p : g.predecessors(o))
      before = std::max(before, longest[static_cast<std::size_t>(p)]);
    longest[static_cast<std::size_t>(o)] = before + w;
    best = std::max(best, longest[static_cast<std::size_t>(o)]);
  }
  return best;
}

double best_sequential(const CostModel& cost) {
  double best = kInfeasible;
  for (DeviceId d = 0; d < cost.platform().device_count(); ++d) {
    double sum = 0;
    for (OpId o = 0; o < cost.graph().op_count(); ++o)
      sum += cost.op_time(o, d);
    best = std::min(best, sum);
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: random_dag_study OUT.csv SUMMARY.md\n";
    return 2;
  }
  const int processors_count = 4;
  const Platform p = processors(processors_count);
  std::ostringstream csv;
  // Sums per (policy, engine): SLR overall and per CCR, speedup, efficiency; policies in registry order.
  struct Sums {
    std::string engine;
    std::map<double, std::pair<double, int>> slr_by_ccr;
    double slr = 0, speedup = 0, efficiency = 0;
    int n = 0;
  };
  std::map<std::string, Sums> sums;
  int graphs = 0;
  csv << "graph,ops,ccr,seed,policy,engine,makespan,slr,speedup,efficiency\n";
  for (int ops : {20, 50, 100})
    for (double ccr : {0.1, 1.0, 5.0})
      for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const Graph g = textbook_dag({ops, ccr, 1.0, 3.0, 0.5, seed * 1000 + static_cast<std::uint64_t>(ops)},
                                     processors_count);
        const CostModel cost(g, p);
        const double cp = critical_path_of_minimum_costs(cost), seq = best_sequential(cost);
        ++graphs;
        const auto row = [&](const std::string& policy, const std::string& engine, double makespan) {
          char buf[256];
          std::snprintf(buf, sizeof buf, "%s,%d,%g,%llu,%s,%s,%.9g,%.9g,%.9g,%.9g\n", g.name.c_str(), ops,
                        ccr, static_cast<unsigned long long>(seed), policy.c_str(), engine.c_str(), makespan,
                        makespan / cp, seq / makespan, seq / makespan / processors_count);
          csv << buf;
          Sums& m = sums[policy];
          m.engine = engine;
          m.slr += makespan / cp;
          m.speedup += seq / makespan;
          m.efficiency += seq / makespan / processors_count;
          ++m.n;
          m.slr_by_ccr[ccr].first += makespan / cp;
          ++m.slr_by_ccr[ccr].second;
        };
        for (const auto& policy : policy_registry().all())
          if (policy.plans_ahead() && policy.in_comparisons())
            row(policy.name(), "analytic", run_analytic(policy.plan({cost, seed}), cost).makespan);
        for (const auto& policy : policy_registry().all())
          if (!policy.plans_ahead())
            row(policy.name(), "simgrid", run_simgrid_dynamic(policy, {cost, seed}).execution.makespan);
      }
  write_file_atomically(argv[1], csv.str(), true);

  std::vector<std::pair<double, std::string>> ranked; // by mean SLR
  for (const auto& [name, m] : sums)
    ranked.push_back({m.slr / m.n, name});
  std::sort(ranked.begin(), ranked.end());
  std::ostringstream md;
  md << graphs << " explicit-cost random DAGs (20, 50, 100 ops; CCR 0.1, 1, 5; 10 seeds each) on "
     << processors_count
     << " processors; means over the suite, best SLR first (generator and metrics: study.cpp).\n\n";
  md << "| policy | engine | SLR | SLR, CCR 0.1 | SLR, CCR 1 | SLR, CCR 5 | speedup | efficiency |\n";
  md << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& [slr, name] : ranked) {
    const Sums& m = sums[name];
    char buf[256];
    std::snprintf(buf, sizeof buf, "| %s | %s | %.3f |", name.c_str(), m.engine.c_str(), slr);
    md << buf;
    for (const auto& [ccr, v] : m.slr_by_ccr) {
      std::snprintf(buf, sizeof buf, " %.3f |", v.first / v.second);
      md << buf;
    }
    std::snprintf(buf, sizeof buf, " %.3f | %.3f |\n", m.speedup / m.n, m.efficiency / m.n);
    md << buf;
  }
  write_file_atomically(argv[2], md.str(), true);
  std::cout << md.str();
  return 0;
}
