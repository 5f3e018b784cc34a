// Random DAGs in the explicit-cost form of Topcuoglu, Hariri and Wu (IEEE TPDS 13(3), 2002, random graph
// generator): v tasks in about sqrt(v)/alpha levels whose widths are uniform with mean sqrt(v)*alpha; each
// task feeds about out_degree tasks of the next level; the mean computation cost of task i, w_i, is
// uniform in [0, 2 w_DAG] and its cost on processor j uniform in [w_i (1 - beta/2), w_i (1 + beta/2)]
// (beta: heterogeneity); edge costs are uniform in [0, 2 CCR w_DAG], so that their mean over the mean
// computation cost is CCR. Costs are explicit seconds per named processor, as in the papers, so the graph
// runs on a textbook platform (platforms/textbook-3p.json: P1, P2, P3).
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/random.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cmath>

namespace hs {
namespace {

struct TopcuogluOptions {
  int tasks = 100;
  double alpha = 1.0;
  double out_degree = 2.0;
  double ccr = 1.0;
  double beta = 0.5;
  double mean_cost = 50.0; // w_DAG, seconds
  std::vector<std::string> devices = {"P1", "P2", "P3"};
  std::uint64_t seed = 1;
};

Graph topcuoglu_dag(const TopcuogluOptions& o) {
  Rng rng(o.seed);
  GraphBuilder b("topcuoglu-v" + std::to_string(o.tasks) + "-s" + std::to_string(o.seed));
  const double mean_width = std::max(1.0, std::sqrt(static_cast<double>(o.tasks)) * o.alpha);
  std::vector<OpId> previous, current;
  int made = 0;
  while (made < o.tasks) {
    const auto widest = static_cast<std::int64_t>(std::max(1.0, std::round(2 * mean_width - 1)));
    const int width = std::min(o.tasks - made, static_cast<int>(rng.integer(1, widest)));
    current.clear();
    for (int i = 0; i < width; ++i) {
      auto h = b.op(std::string("n").append(std::to_string(++made)));
      const double w = rng.uniform(0, 2 * o.mean_cost);
      for (const auto& d : o.devices)
        h.time_on(d, w * rng.uniform(1 - o.beta / 2, 1 + o.beta / 2));
      current.push_back(h.id());
    }
    if (!previous.empty()) {
      // Every task has a parent in the level above; every parent gets about out_degree children.
      std::vector<std::vector<OpId>> children(previous.size());
      for (OpId c : current)
        children[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(previous.size()) - 1))]
            .push_back(c);
      for (auto& kids : children) {
        const double want = std::min(o.out_degree, static_cast<double>(current.size()));
        const int extra =
            static_cast<int>(std::floor(want - static_cast<double>(kids.size()) + rng.uniform()));
        for (int k = 0; k < extra; ++k) {
          const OpId c = current[static_cast<std::size_t>(
              rng.integer(0, static_cast<std::int64_t>(current.size()) - 1))];
          if (std::find(kids.begin(), kids.end(), c) == kids.end()) kids.push_back(c);
        }
        std::sort(kids.begin(), kids.end());
      }
      for (std::size_t p = 0; p < previous.size(); ++p)
        for (OpId c : children[p]) {
          auto parent = b.handle(previous[p]);
          parent.feeds_in(b.handle(c), rng.uniform(0, 2 * o.ccr * o.mean_cost));
        }
    }
    previous = current;
  }
  return std::move(b).build();
}

} // namespace
} // namespace hs

HS_REGISTER_WORKLOAD(
    topcuoglu,
    hs::WorkloadBuilder{
        "topcuoglu",
        "random DAG with explicit costs per processor, generator of Topcuoglu et al. 2002 (for textbook "
        "platforms)",
        {{"v", "100"},
         {"alpha", "1.0"},
         {"out_degree", "2"},
         {"ccr", "1.0"},
         {"beta", "0.5"},
         {"wdag", "50", "mean cost, s"},
         {"devices", "P1,P2,P3"},
         {"seed", "<--seed>"}},
        [](hs::WorkloadParams& p) {
          hs::TopcuogluOptions o;
          o.tasks = static_cast<int>(p.integer("v", 100, 1, 10'000'000));
          o.alpha = p.number("alpha", 1.0, 0.01, 100.0);
          o.out_degree = p.number("out_degree", 2.0, 1.0, 1e7);
          o.ccr = p.number("ccr", 1.0, 0.0, 1e6);
          o.beta = p.number("beta", 0.5, 0.0, 2.0);
          o.mean_cost = p.number("wdag", 50.0, 1e-12, 1e12);
          o.devices = p.names("devices", "P1,P2,P3");
          o.seed = p.seed();
          return hs::topcuoglu_dag(o);
        }})
