#pragma once
// Layered random DAGs whose ops are real kernel shapes of moderate size (about 0.1 to 30 ms each on one
// core), so that a whole graph runs for real in well under a second and its ops map to CPU kernels.
#include "sim/graph.hpp"

#include <cstdint>

namespace hs::validation {

struct ExecutableGraphOptions {
  int ops = 24;
  std::uint64_t seed = 1;
};

Graph executable_graph(const ExecutableGraphOptions& o);

} // namespace hs::validation
