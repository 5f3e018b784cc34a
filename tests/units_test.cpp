#include "sim/units.hpp"

#include <doctest/doctest.h>
#include <stdexcept>

using hs::units::parse;
using Q = hs::units::Quantity;

TEST_CASE("units: SimGrid-style strings and plain SI numbers") {
  CHECK(parse("32GBps", Q::Bandwidth) == doctest::Approx(32e9));
  CHECK(parse("1GiBps", Q::Bandwidth) == doctest::Approx(1073741824.0));
  CHECK(parse("100Gbps", Q::Bandwidth) == doctest::Approx(12.5e9));
  CHECK(parse("1.5us", Q::Time) == doctest::Approx(1.5e-6));
  CHECK(parse("2 ms", Q::Time) == doctest::Approx(2e-3));
  CHECK(parse("19.5Tf", Q::Flops) == doctest::Approx(19.5e12));
  CHECK(parse("300W", Q::Power) == doctest::Approx(300.0));
  CHECK(parse("80GiB", Q::Bytes) == doctest::Approx(80.0 * 1073741824.0));
  CHECK(parse("42", Q::Time) == doctest::Approx(42.0));
  CHECK(parse("1e-6", Q::Time) == doctest::Approx(1e-6));
}

TEST_CASE("units: wrong or unknown units are refused, not guessed") {
  CHECK_THROWS_AS(parse("32GB", Q::Bandwidth), std::invalid_argument); // a size, not a bandwidth
  CHECK_THROWS_AS(parse("5 parsecs", Q::Time), std::invalid_argument);
  CHECK_THROWS_AS(parse("fast", Q::Flops), std::invalid_argument);
  CHECK_THROWS_AS(parse("", Q::Power), std::invalid_argument);
  CHECK_THROWS_AS(parse("inf", Q::Time), std::invalid_argument);
  CHECK_THROWS_AS(parse("3W", Q::Plain), std::invalid_argument);
}
