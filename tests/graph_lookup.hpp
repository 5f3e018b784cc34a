#pragma once
// Finding a graph's op by name in a test, failing the test where there is none.
#include "sim/graph.hpp"

#include <doctest/doctest.h>
#include <string>

namespace hs::test {

inline const Op& op_named(const Graph& g, const std::string& name) {
  const auto id = g.find_op(name);
  REQUIRE_MESSAGE(id.has_value(), "no op " << name);
  return g.op(*id);
}

} // namespace hs::test
