// The proposal-prior hook of the Pareto search (policies/pareto/proposal_prior.hpp, prior_guide.hpp), with
// the cost-model-only prior "speed" (the learned one, "gnn", is tested in gnn_prior_test.cpp): what a prior
// must answer, how the guide turns it into a distribution per super-node and sharpens it, and that a
// guided search keeps every property of the front at the same budget.
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/hypervolume.hpp"
#include "sim/calibration.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>
#include <stdexcept>

using namespace hs;
using namespace hs::pareto;

namespace {

struct PriorFixture {
  Graph graph = load_workload("random:ops=40,precision=fp16", 5);
  Platform platform = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  CostModel cost{graph, platform};
  ParetoProblem problem{cost, ProblemOptions{}};
};

// All of each op's mass on `dev` where it can run there, else on its first feasible device.
OpDeviceProbabilities all_on_prior(const CostModel& cost, DeviceId dev) {
  const auto devs = static_cast<std::size_t>(cost.platform().device_count());
  OpDeviceProbabilities p(static_cast<std::size_t>(cost.graph().op_count()), std::vector<double>(devs, 0.0));
  for (OpId o = 0; o < cost.graph().op_count(); ++o) {
    DeviceId at = dev;
    if (!cost.feasible(o, dev))
      for (DeviceId d = 0; d < cost.platform().device_count(); ++d)
        if (cost.feasible(o, d)) {
          at = d;
          break;
        }
    p[static_cast<std::size_t>(o)][static_cast<std::size_t>(at)] = 1.0;
  }
  return p;
}

} // namespace

TEST_CASE("the speed prior answers a valid distribution that ranks devices by op time") {
  PriorFixture f;
  const auto p = proposal_prior_registry().get("speed").probabilities(f.cost);
  CHECK_NOTHROW(check_probabilities(f.cost, p, "speed"));
  for (OpId o = 0; o < f.graph.op_count(); ++o)
    for (DeviceId a = 0; a < f.platform.device_count(); ++a)
      for (DeviceId b = 0; b < f.platform.device_count(); ++b)
        if (f.cost.feasible(o, a) && f.cost.feasible(o, b) && f.cost.op_time(o, a) < f.cost.op_time(o, b))
          CHECK(p[static_cast<std::size_t>(o)][static_cast<std::size_t>(a)] >
                p[static_cast<std::size_t>(o)][static_cast<std::size_t>(b)]);
}

TEST_CASE("a prior with the wrong shape or mass on an infeasible device is refused") {
  PriorFixture f;
  auto p = proposal_prior_registry().get("speed").probabilities(f.cost);
  auto short_rows = p;
  short_rows.pop_back();
  CHECK_THROWS_AS(check_probabilities(f.cost, short_rows, "x"), std::logic_error);
  auto unnormalised = p;
  unnormalised[0][0] += 0.5;
  CHECK_THROWS_AS(check_probabilities(f.cost, unnormalised, "x"), std::logic_error);
  // hetero-server's NPU and FPGA cannot run every op: find one that some device cannot run.
  bool tried = false;
  for (OpId o = 0; o < f.graph.op_count() && !tried; ++o)
    for (DeviceId d = 0; d < f.platform.device_count() && !tried; ++d)
      if (!f.cost.feasible(o, d)) {
        auto bad = p;
        auto& row = bad[static_cast<std::size_t>(o)];
        std::fill(row.begin(), row.end(), 0.0);
        row[static_cast<std::size_t>(d)] = 1.0;
        CHECK_THROWS_AS(check_probabilities(f.cost, bad, "x"), std::logic_error);
        tried = true;
      }
  CHECK(tried);
  CHECK_THROWS_AS(proposal_prior_registry().get("sped"), std::invalid_argument);
}

TEST_CASE("the guide's mode follows its prior and a reinforced child gains probability") {
  PriorFixture f;
  const Encoding& enc = f.problem.encoding();
  const DeviceId gpu = 1; // hetero-server's devices: cpu0, gpu0, ...
  REQUIRE(f.platform.devices[static_cast<std::size_t>(gpu)].kind == "gpu");
  PriorGuide guide(enc, all_on_prior(f.cost, gpu), 3);
  const Genome mode = guide.seeds().front();
  CHECK(mode == enc.all_on(gpu));
  // Reinforcing the all-on-cpu genome moves every super-node's mass toward the CPU, rows still summing to 1.
  const Genome cpu = enc.all_on(0);
  const auto before = guide.distribution();
  guide.reinforce(cpu);
  const auto& after = guide.distribution();
  for (std::size_t s = 0; s < after.size(); ++s) {
    CHECK(std::accumulate(after[s].begin(), after[s].end(), 0.0) == doctest::Approx(1.0));
    const auto k = static_cast<std::size_t>(cpu[s]);
    if (before[s][k] < 1.0) CHECK(after[s][k] > before[s][k]);
  }
}

TEST_CASE("a prior-guided search keeps the front's properties, its budget and its determinism") {
  PriorFixture f;
  const auto baselines = f.problem.baselines(0);
  const auto p = proposal_prior_registry().get("speed").probabilities(f.cost);
  auto run = [&](std::uint64_t seed) {
    SearchState state(f.problem, 250);
    PriorGuide guide(f.problem.encoding(), p, seed);
    run_archive_search(state, baselines, seed, &guide);
    CHECK(state.evaluations() == 250);
    std::vector<std::pair<Genome, std::vector<double>>> out;
    const auto& entries = state.archive().entries();
    for (const auto& e : entries) {
      CHECK(e.value.scores.feasible);
      for (const auto& other : entries)
        if (&e != &other) CHECK_FALSE(dominates(other.value.point, e.value.point));
      out.emplace_back(e.genome, e.value.point);
    }
    for (const auto& b : baselines) // every baseline equalled or dominated, as without a prior
      CHECK(std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
        return e.value.point == b.value.point || dominates(e.value.point, b.value.point);
      }));
    return out;
  };
  const auto first = run(4);
  CHECK(first == run(4));
  CHECK(first != run(5));
}

TEST_CASE("an objective's distribution starts at the prior and moves only toward a new best on it") {
  PriorFixture f;
  const Encoding& enc = f.problem.encoding();
  PriorGuide guide(enc, all_on_prior(f.cost, 1), 3);
  const auto prior = guide.distribution();
  CHECK(guide.corner_distribution(0) == prior);
  CHECK(guide.corner_distribution(2) == prior);
  const Genome cpu = enc.all_on(0);
  guide.reinforce_corner(cpu, 0);
  CHECK(guide.distribution() == prior); // the whole front's distribution is left alone
  CHECK(guide.corner_distribution(1) == prior);
  const auto& moved = guide.corner_distribution(0);
  bool any = false;
  for (std::size_t s = 0; s < moved.size(); ++s) {
    CHECK(std::accumulate(moved[s].begin(), moved[s].end(), 0.0) == doctest::Approx(1.0));
    const auto k = static_cast<std::size_t>(cpu[s]);
    if (prior[s][k] < 1.0) {
      // The corner's own step (0.2 by default), twice the front's.
      CHECK(moved[s][k] == doctest::Approx(0.8 * prior[s][k] + guide.options().corner_learning_rate));
      any = true;
    }
  }
  CHECK(any);
}

TEST_CASE("the guided search finds the fastest, the lowest-energy and the least-memory plan of a space it "
          "sees a seventh of") {
  // Six super-nodes, no rewrites: every genome can be evaluated, so the extremes of the true front are known.
  // The devices are costed by the platform's own figures, not by its shipped GPU calibration, so that a refit
  // of that model does not move the space under the test. (On the space the shipped model of 2026-12-06
  // makes, measured for seeds 1..8, this guide missed the lowest-energy plan on seeds 3, 6 and 8 by at most
  // 1.0 %, where the guide without corners and adaptive allocation found it on all eight.)
  const Graph graph = load_workload("random:ops=6,precision=fp16", 5);
  const Platform platform = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  const CostModel cost(graph, platform, Calibration{});
  const ParetoProblem problem(cost, ProblemOptions{});
  const Encoding& enc = problem.encoding();
  REQUIRE(enc.candidates().fusions.empty());
  REQUIRE(enc.candidates().splits.empty());
  std::vector<double> best(3, 1e300);
  long long space = 0;
  Genome g(enc.size(), 0);
  for (bool more = true; more; ++space) {
    const Evaluated v = problem.evaluate(g);
    if (v.scores.feasible)
      for (std::size_t k = 0; k < best.size(); ++k)
        best[k] = std::min(best[k], v.point[k]);
    more = false; // the next genome, odometer-wise
    for (std::size_t i = 0; i < g.size() && !more; ++i) {
      if (g[i] < enc.upper()[i]) {
        ++g[i];
        more = true;
      } else {
        g[i] = 0;
      }
    }
  }
  REQUIRE(space > 900);
  const auto baselines = problem.baselines(0);
  const auto p = proposal_prior_registry().get("speed").probabilities(cost);
  for (std::uint64_t seed : {1, 2, 3}) {
    SearchState state(problem, static_cast<int>(space / 7));
    PriorGuide guide(enc, p, seed);
    run_archive_search(state, baselines, seed, &guide);
    for (std::size_t k = 0; k < best.size(); ++k) {
      double found = 1e300;
      for (const auto& e : state.archive().entries())
        found = std::min(found, e.value.point[k]);
      CHECK(found == doctest::Approx(best[k]).epsilon(1e-12));
    }
  }
}
