#pragma once
// Random layered DAGs in the shape of Topcuoglu et al. 2002 (height about sqrt(v)/alpha levels of about
// sqrt(v)*alpha ops), with ML-like ops whose FLOPs and bytes come from random GEMM, convolution and
// elementwise shapes, so the cost model can place them on any platform.
#include "sim/graph.hpp"

#include <cstdint>
#include <string>

namespace hs {

struct RandomDagOptions {
  int ops = 1000;
  double alpha = 1.0;      // shape: < 1 tall and thin, > 1 short and wide
  double out_degree = 2.0; // mean number of consumers of an op in the next level
  std::string precision = "fp32";
  std::uint64_t seed = 1;
};

Graph random_ml_dag(const RandomDagOptions& o);

} // namespace hs
