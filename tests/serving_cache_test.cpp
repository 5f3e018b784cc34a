// The Pareto cache: a request's shape picks its bucket's front, the objective picks the plan, the file is
// versioned, and a shape above every bucket is an error unless re-search adds it.
#include "serving/pareto_cache.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <filesystem>

namespace {

using namespace hs::serving;

const CacheSearch kSmallSearch{40, 1};

ParetoCache small_cache(const hs::Platform& p) {
  ParetoCache c;
  c.add_bucket(p, "bert", "bert-base:batch=1", 32, kSmallSearch);
  c.add_bucket(p, "bert", "bert-base:batch=1", 16, kSmallSearch);
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
  const CacheBucket& b = c.bucket("bert", 20, false, p, kSmallSearch);
  CHECK(b.seq == 32);
  CHECK(&c.bucket("bert", 32, false, p, kSmallSearch) == &b);
  CHECK(c.bucket("bert", 1, false, p, kSmallSearch).seq == 16);
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
  const hs::Graph exact = hs::load_workload(cache_spec_at("bert-base:batch=1", 20));
  const hs::CostModel exact_cost(exact, p);
  const auto on_exact = cached_plan_on(fastest, exact_cost);
  CHECK(hs::run_contention(on_exact.plan, *on_exact.cost).makespan > 0);
  const hs::Graph at_bucket = hs::load_workload(cache_spec_at("bert-base:batch=1", 32));
  const hs::CostModel bucket_cost(at_bucket, p);
  const auto on_bucket = cached_plan_on(fastest, bucket_cost);
  CHECK(hs::run_contention(on_bucket.plan, *on_bucket.cost).makespan ==
        doctest::Approx(fastest.latency).epsilon(1e-9));

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
    FAIL("a version-2 cache was read");
  } catch (const hs::InputError& e) {
    CHECK(e.file() == path);
    CHECK(std::string(e.what()).find("version 2") != std::string::npos);
  }
  hs::write_file_atomically(path, R"({"format": "heterosim-pareto-front", "version": 1})", true);
  CHECK_THROWS_AS((void)ParetoCache::read(path), hs::InputError);
  std::filesystem::remove(path);
}

TEST_CASE("serving: a shape above every bucket is an error without re-search, and is searched with it") {
  const hs::Platform p = hs::load_platform("hetero-server");
  ParetoCache c = small_cache(p);
  try {
    (void)c.bucket("bert", 48, false, p, kSmallSearch);
    FAIL("an out-of-bucket shape was served");
  } catch (const hs::InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("tenant 'bert'") != std::string::npos);
    CHECK(what.find("seq=48") != std::string::npos);
  }
  CHECK(c.bucket("bert", 48, true, p, kSmallSearch).seq == 48); // searched once and added
  CHECK(c.tenants[0].buckets.size() == 3);
  CHECK(c.bucket("bert", 40, false, p, kSmallSearch).seq == 48);
  hs::Platform other = p;
  other.name = "other-server";
  CHECK_THROWS_AS((void)c.bucket("bert", 40, false, other, kSmallSearch), hs::InputError);
}
