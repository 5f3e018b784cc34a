// The list schedulers' timetable (policies/timetable.hpp): the insertion-based earliest start, and tentative
// bookings, which must answer exactly as if they had been reserved and, once dropped, as if never made.
#include "policies/timetable.hpp"

#include <doctest/doctest.h>
#include <random>

using hs::Timetable;

TEST_CASE("timetable: the earliest start fills the first gap long enough, touching intervals allowed") {
  Timetable t(1);
  t.reserve(0, 1, 2);
  t.reserve(0, 3, 5);
  CHECK(t.earliest_start(0, 0, 1) == 0);   // before the first interval, ending as it starts
  CHECK(t.earliest_start(0, 0, 1.5) == 5); // no gap of 1.5 before the end
  CHECK(t.earliest_start(0, 1.5, 1) == 2); // the gap between the two
  CHECK(t.earliest_start(0, 6, 1) == 6);
  CHECK(t.free_from(0, 5));
  CHECK_FALSE(t.free_from(0, 4.9));
}

TEST_CASE("timetable: tentative bookings answer as reserved ones, and once dropped as if never made") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int moved_by_tentative = 0;
  for (int round = 0; round < 200; ++round) {
    // all: every booking reserved; mixed: every third tentative instead; base: only the reserved ones.
    Timetable all(2), mixed(2), base(2);
    for (int k = 0; k < 30; ++k) {
      const int r = static_cast<int>(rng() % 2);
      const double duration = 0.1 + unit(rng);
      // Found as a scheduler finds a slot, so the bookings never overlap.
      const double start = all.earliest_start(r, 10 * unit(rng), duration);
      REQUIRE(mixed.earliest_start(r, start, duration) == start);
      all.reserve(r, start, start + duration);
      if (k % 3 == 2) {
        mixed.reserve_tentative(r, start, start + duration);
      } else {
        mixed.reserve(r, start, start + duration);
        base.reserve(r, start, start + duration);
      }
    }
    for (int q = 0; q < 50; ++q) {
      const int r = static_cast<int>(rng() % 2);
      const double ready = 12 * unit(rng), duration = 2 * unit(rng);
      const double start = all.earliest_start(r, ready, duration);
      CHECK(mixed.earliest_start(r, ready, duration) == start);
      CHECK(mixed.free_from(r, ready) == all.free_from(r, ready));
      CHECK(mixed.unused(r) == all.unused(r));
      moved_by_tentative += base.earliest_start(r, ready, duration) != start;
    }
    mixed.drop_tentative();
    for (int q = 0; q < 50; ++q) {
      const int r = static_cast<int>(rng() % 2);
      const double ready = 12 * unit(rng), duration = 2 * unit(rng);
      CHECK(mixed.earliest_start(r, ready, duration) == base.earliest_start(r, ready, duration));
      CHECK(mixed.free_from(r, ready) == base.free_from(r, ready));
    }
  }
  CHECK(moved_by_tentative > 1000); // the tentative bookings did change answers: the check is not vacuous
}
