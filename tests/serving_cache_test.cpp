// The Pareto cache: a request's shape picks its bucket's front, the objective picks the plan, the file is
// versioned, and a shape above every bucket is an error unless re-search adds it.
#include "serving/pareto_cache.hpp"
#include "serving/pareto_cache_refine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <filesystem>

namespace {

using namespace hs::serving;

const CacheSearch kSmallSearch{40, 1};

ParetoCache small_cache(const hs::Platform& p) {
  ParetoCache c;
  const std::string id = platform_identity("hetero-server");
  c.add_bucket(p, id, "bert", "bert-base", 32, 1, kSmallSearch);
  c.add_bucket(p, id, "bert", "bert-base", 16, 1, kSmallSearch);
  return c;
}

std::string cache_temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hs_serving_cache_" + name)).string();
}

} // namespace

TEST_CASE("serving: the Pareto cache returns the plan of the request's bucket") {
  const hs::Platform p = hs::load_platform("hetero-server");
  ParetoCache c = small_cache(p);
  REQUIRE(c.tenants.size() == 1);
  REQUIRE(c.tenants[0].buckets.size() == 2);
  CHECK(c.tenants[0].buckets[0].seq == 16); // kept in seq order
  const CacheBucket& b = c.bucket("bert", 20, 1, false, p, kSmallSearch);
  CHECK(b.seq == 32);
  CHECK(&c.bucket("bert", 32, 1, false, p, kSmallSearch) == &b);
  CHECK(c.bucket("bert", 1, 1, false, p, kSmallSearch).seq == 16);
  const CachedPlan& fastest = ParetoCache::pick(b, PlanObjective::LeastLatency, 0.0);
  for (const CachedPlan& x : b.front)
    CHECK(fastest.latency <= x.latency);
  const CachedPlan& frugal = ParetoCache::pick(b, PlanObjective::LeastEnergyWithinSlo, 1e9);
  for (const CachedPlan& x : b.front)
    CHECK(frugal.energy <= x.energy);
  // A limit nothing meets falls back to the fastest plan.
  CHECK(&ParetoCache::pick(b, PlanObjective::LeastEnergyWithinSlo, 0.0) == &fastest);
  // The bucket's plan replays on the graph of the request's own shape, and at the bucket's shape it is the
  // search's figure.
  const hs::Graph exact = hs::load_workload(cache_spec_at("bert-base", 20, 1));
  const hs::CostModel exact_cost(exact, p);
  const auto on_exact = cached_plan_on(fastest, exact_cost);
  CHECK(hs::run_contention(on_exact.plan, *on_exact.cost).makespan > 0);
  const hs::Graph at_bucket = hs::load_workload(cache_spec_at("bert-base", 32, 1));
  const hs::CostModel bucket_cost(at_bucket, p);
  const auto on_bucket = cached_plan_on(fastest, bucket_cost);
  CHECK(hs::run_contention(on_bucket.plan, *on_bucket.cost).makespan ==
        doctest::Approx(fastest.latency).epsilon(1e-9));
  CHECK(fastest.eval_latency == fastest.latency); // not replayed: one value

  // One file: written, read back the same.
  const std::string path = cache_temp_path("roundtrip.json");
  std::filesystem::remove(path);
  c.write(path, false);
  CHECK_THROWS_AS(c.write(path, false), hs::InputError); // never overwritten without force
  const ParetoCache back = ParetoCache::read(path);
  CHECK(back.to_json() == c.to_json());
  std::filesystem::remove(path);
}

TEST_CASE("serving: a Pareto cache file of another version is refused, naming the file") {
  const std::string path = cache_temp_path("v2.json");
  hs::write_file_atomically(
      path, R"({"format": "heterosim-pareto-cache", "version": 2, "platform": "x", "tenants": []})", true);
  try {
    (void)ParetoCache::read(path);
    FAIL("a version-2 cache (evaluator values only) was read");
  } catch (const hs::InputError& e) {
    CHECK(e.file() == path);
    CHECK(std::string(e.what()).find("version 2 is not the version this build reads (4)") !=
          std::string::npos);
  }
  hs::write_file_atomically(
      path, R"({"format": "heterosim-pareto-cache", "version": 3, "platform": "x", "tenants": []})", true);
  CHECK_THROWS_WITH_AS((void)ParetoCache::read(path), doctest::Contains("version 3 is not the version"),
                       hs::InputError); // no decoder parts, no devices
  hs::write_file_atomically(path, R"({"format": "heterosim-pareto-front", "version": 1})", true);
  CHECK_THROWS_AS((void)ParetoCache::read(path), hs::InputError);
  std::filesystem::remove(path);
}

TEST_CASE("serving: a shape above every bucket is an error without re-search, and is searched with it") {
  const hs::Platform p = hs::load_platform("hetero-server");
  ParetoCache c = small_cache(p);
  try {
    (void)c.bucket("bert", 48, 1, false, p, kSmallSearch);
    FAIL("an out-of-bucket shape was served");
  } catch (const hs::InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("tenant 'bert'") != std::string::npos);
    CHECK(what.find("seq=48") != std::string::npos);
  }
  CHECK(c.bucket("bert", 48, 1, true, p, kSmallSearch).seq == 48); // searched once and added
  CHECK(c.tenants[0].buckets.size() == 3);
  CHECK(c.bucket("bert", 40, 1, false, p, kSmallSearch).seq == 48);
  hs::Platform other = p;
  other.name = "other-server";
  CHECK_THROWS_AS((void)c.bucket("bert", 40, 1, false, other, kSmallSearch), hs::InputError);
}

TEST_CASE("serving: a batch's size picks the front of the smallest cached size at or above it") {
  const hs::Platform p = hs::load_platform("hetero-server");
  ParetoCache c;
  const std::string id = platform_identity("hetero-server");
  for (int batch : {1, 4})
    for (int seq : {16, 32})
      c.add_bucket(p, id, "bert", "bert-base", seq, batch, kSmallSearch);
  REQUIRE(c.tenants[0].buckets.size() == 4);
  const CacheBucket& b3 = c.bucket("bert", 20, 3, false, p, kSmallSearch);
  CHECK(b3.batch == 4);
  CHECK(b3.seq == 32);
  CHECK(c.bucket("bert", 20, 1, false, p, kSmallSearch).batch == 1);
  // The batch-4 front was searched on batch-4 graphs: its fastest plan is slower than batch 1's.
  CHECK(b3.front.front().latency > c.bucket("bert", 32, 1, false, p, kSmallSearch).front.front().latency);
  // Its plan replays on a graph of 3 requests (the op names do not depend on the batch size).
  const hs::Graph g3 = hs::load_workload(cache_spec_at("bert-base", 20, 3));
  const hs::CostModel cost3(g3, p);
  const auto on3 = cached_plan_on(b3.front.front(), cost3);
  CHECK(hs::run_contention(on3.plan, *on3.cost).makespan > 0);
  try {
    (void)c.bucket("bert", 20, 5, false, p, kSmallSearch);
    FAIL("a batch above every cached size was served");
  } catch (const hs::InputError& e) {
    CHECK(std::string(e.what()).find("seq=20 batch=5 is above every bucket") != std::string::npos);
  }
  const int before = c.searches;
  CHECK(c.bucket("bert", 20, 5, true, p, kSmallSearch).batch == 5);
  CHECK(c.searches == before + 1);
}

TEST_CASE("serving: a Pareto cache of another platform description is refused, or re-searched") {
  const hs::Platform p = hs::load_platform("hetero-server");
  ParetoCache c = small_cache(p);
  c.file = "cache.json";
  CHECK(c.platform_id.size() == 16);
  CHECK(c.platform_id == platform_identity("hetero-server"));
  CHECK(c.platform_id != platform_identity("workstation"));
  c.bind_platform(p, c.platform_id, false); // the same description: nothing to do
  CHECK(c.tenants[0].buckets[0].front.size() > 0);
  try {
    c.bind_platform(p, "0123456789abcdef", false);
    FAIL("a cache of another platform description was used");
  } catch (const hs::InputError& e) {
    CHECK(e.file() == "cache.json");
    CHECK(e.place() == "platform_id");
    CHECK(std::string(e.what()).find("0123456789abcdef") != std::string::npos);
  }
  const std::vector<CachedPlan> old_front = c.tenants[0].buckets[1].front;
  c.bind_platform(p, "0123456789abcdef", true);
  CHECK(c.platform_id == "0123456789abcdef");
  CHECK(c.tenants[0].buckets[1].front.empty()); // dropped, searched when looked up
  const int before = c.searches;
  const CacheBucket& b = c.bucket("bert", 30, 1, false, p, kSmallSearch);
  CHECK(c.searches == before + 1);
  REQUIRE(b.front.size() == old_front.size()); // the same search on the same speeds: the same front
  CHECK(b.front.front().latency == doctest::Approx(old_front.front().latency).epsilon(1e-12));
  CHECK(c.tenants[0].buckets[0].front.empty()); // the other bucket waits until it is needed
}

TEST_CASE("serving: refinement leaves no interval whose farthest shape loses over the tolerance") {
  const hs::Platform p = hs::load_platform("hetero-server");
  const std::string id = platform_identity("hetero-server");
  ParetoCache c;
  for (int seq : {32, 64})
    c.add_bucket(p, id, "bert", "bert-base", seq, 1, kSmallSearch);
  const RefineResult r = refine_cache(c, p, "bert", CacheRefine{0.02, 4, 16, 1.2}, kSmallSearch);
  const auto& buckets = c.tenants[0].buckets;
  CHECK(static_cast<int>(buckets.size()) == 2 + r.added);
  CHECK(r.probes.size() >= buckets.size()); // every interval was probed at least once
  int lower = 0;
  for (const CacheBucket& b : buckets) {
    if (b.seq - lower >= 4) { // the probe just above the lower bucket, against the bucket that serves it
      const CacheBucket probe{lower + 1, 1,
                              search_cache_front(p, cache_spec_at("bert-base", lower + 1, 1), kSmallSearch)};
      const PlanLoss loss = plan_loss(b, probe, p, "bert-base", 1.2);
      CHECK(loss.latency <= 0.02);
      CHECK(loss.energy <= 0.02);
    }
    lower = b.seq;
  }
  // A tolerance nothing meets splits until the limit; one everything meets adds nothing.
  ParetoCache strict;
  strict.add_bucket(p, id, "bert", "bert-base", 64, 1, kSmallSearch);
  CHECK(refine_cache(strict, p, "bert", CacheRefine{-1.0, 4, 3, 1.2}, kSmallSearch).added == 3);
  CHECK(strict.tenants[0].buckets.size() == 4);
  ParetoCache loose;
  loose.add_bucket(p, id, "bert", "bert-base", 64, 1, kSmallSearch);
  CHECK(refine_cache(loose, p, "bert", CacheRefine{10.0, 4, 16, 1.2}, kSmallSearch).added == 0);
}

TEST_CASE(
    "serving: a Pareto cache searched with replay stores both values per plan and picks on the replay") {
  const hs::Platform p = hs::load_platform("hetero-server");
  const CacheSearch replayed{40, 1, true};
  ParetoCache c;
  c.search = replayed;
  c.add_bucket(p, platform_identity("hetero-server"), "bert", "bert-base", 32, 1, replayed);
  const CacheBucket& b = c.bucket("bert", 32, 1, false, p, replayed);
  REQUIRE(!b.front.empty());
  const hs::Graph g = hs::load_workload(cache_spec_at("bert-base", 32, 1));
  const hs::CostModel cost(g, p);
  bool differ = false;
  for (const CachedPlan& x : b.front) { // each plan: SimGrid's figure and the evaluator's, at the bucket
    const auto on = cached_plan_on(x, cost);
    const hs::Execution sg = hs::run_simgrid(on.plan, *on.cost);
    CHECK(x.latency == doctest::Approx(sg.makespan).epsilon(1e-9));
    CHECK(x.energy == doctest::Approx(hs::total_energy(sg)).epsilon(1e-9));
    CHECK(x.eval_latency == doctest::Approx(hs::run_contention(on.plan, *on.cost).makespan).epsilon(1e-9));
    differ = differ || x.energy != x.eval_energy || x.latency != x.eval_latency;
  }
  CHECK(differ); // the stored figure is SimGrid's, not the evaluator's copied
  // The picks use the replayed values: the least replayed latency, the least replayed energy within a limit.
  const CachedPlan& fastest = ParetoCache::pick(b, PlanObjective::LeastLatency, 0.0);
  const double limit = 1.2 * fastest.latency;
  const CachedPlan& frugal = ParetoCache::pick(b, PlanObjective::LeastEnergyWithinSlo, limit);
  CHECK(frugal.latency <= limit);
  for (const CachedPlan& x : b.front) {
    CHECK(fastest.latency <= x.latency);
    if (x.latency <= limit) CHECK(frugal.energy <= x.energy);
  }
  // The file keeps both values and how the fronts were searched.
  const std::string path = cache_temp_path("replayed.json");
  c.write(path, true);
  const ParetoCache back = ParetoCache::read(path);
  CHECK(back.search.replay);
  CHECK(back.tenants[0].buckets[0].front.front().eval_latency == fastest.eval_latency);
  CHECK(back.to_json() == c.to_json());
  std::filesystem::remove(path);
}
