// Hypervolume known answers on tiny hand-made fronts, dominance, the archive and plan selection.
#include "policies/pareto/archive.hpp"
#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/select.hpp"

#include <doctest/doctest.h>

using namespace hs::pareto;

TEST_CASE("hypervolume of a 2-D staircase is the area under it") {
  // Boxes from (1,3), (2,2), (3,1) to (4,4): 1x1 + 1x2 + 1x3 = 6 by strips of width 1.
  CHECK(hypervolume({{1, 3}, {2, 2}, {3, 1}}, {4, 4}) == doctest::Approx(6.0));
  // A dominated point adds nothing.
  CHECK(hypervolume({{1, 3}, {2, 2}, {3, 1}, {3, 3}}, {4, 4}) == doctest::Approx(6.0));
  // A point outside the reference box adds nothing (and is not passed to pagmo, which refuses it).
  CHECK(hypervolume({{5, 0}}, {4, 4}) == 0.0);
  CHECK(hypervolume({{5, 0}, {2, 2}}, {4, 4}) == doctest::Approx(4.0));
}

TEST_CASE("hypervolume of 3-D boxes counts their overlap once") {
  CHECK(hypervolume({{0, 0, 0}}, {1, 2, 3}) == doctest::Approx(6.0));
  // 2x2x1 + 1x1x2 - overlap [1,2]x[1,2]x[1,2] = 4 + 2 - 1.
  CHECK(hypervolume({{0, 0, 1}, {1, 1, 0}}, {2, 2, 2}) == doctest::Approx(5.0));
  CHECK(hypervolume({}, {1, 1, 1}) == 0.0);
}

TEST_CASE("dominance is strict in one objective") {
  CHECK(dominates({1, 2}, {1, 3}));
  CHECK_FALSE(dominates({1, 2}, {1, 2}));
  CHECK_FALSE(dominates({1, 3}, {2, 2}));
}

TEST_CASE("the archive keeps exactly the non-dominated feasible points") {
  Archive a;
  auto entry = [](std::vector<double> p, bool feasible = true) {
    Entry e;
    e.value.point = std::move(p);
    e.value.scores.feasible = feasible;
    return e;
  };
  CHECK(a.offer(entry({2, 2})));
  CHECK_FALSE(a.offer(entry({2, 2})));        // equal: the first stays
  CHECK_FALSE(a.offer(entry({3, 3})));        // dominated
  CHECK_FALSE(a.offer(entry({0, 0}, false))); // infeasible never enters
  CHECK(a.offer(entry({1, 3})));
  CHECK(a.offer(entry({1, 1}))); // dominates both
  REQUIRE(a.entries().size() == 1);
  CHECK(a.entries().front().value.point == std::vector<double>{1, 1});
}

TEST_CASE("select picks the minimum within limits, relative or absolute") {
  const std::vector<std::vector<double>> v = {{1.00, 9}, {1.04, 5}, {1.10, 2}, {2.0, 1}};
  CHECK(*select_plan(v, 1, {parse_limit(0, "1.05x")}) == 1);
  CHECK(*select_plan(v, 1, {parse_limit(0, "1.5")}) == 2);
  CHECK(*select_plan(v, 0, {}) == 0);
  CHECK_FALSE(select_plan(v, 1, {parse_limit(0, "0.5")}).has_value());
  CHECK_THROWS_AS(parse_limit(0, "fast"), std::invalid_argument);
  CHECK_THROWS_AS(parse_limit(0, "-1x"), std::invalid_argument);
  CHECK(*weighted_choice(v, {1, 0}) == 0);
  CHECK(*weighted_choice(v, {0, 1}) == 3);
  CHECK(*weighted_choice(v, {1, 0.1}) == 2); // 1.1 + 0.2 = 1.3 is the smallest sum
}

TEST_CASE("crowding distance marks the ends as infinitely sparse") {
  const auto d = crowding_distance({{0, 4}, {1, 3}, {3, 1}, {4, 0}});
  CHECK(d[0] == std::numeric_limits<double>::infinity());
  CHECK(d[3] == std::numeric_limits<double>::infinity());
  CHECK(d[1] == doctest::Approx(3.0 / 4 + 3.0 / 4));
}
