#include "workloads/random_dag.hpp"

#include "sim/graph_builder.hpp"
#include "sim/random.hpp"
#include "workloads/layers.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cmath>

namespace hs {
namespace {

// One op with costs from a random but self-consistent shape.
void shape_op(OpHandle& h, Rng& rng, double elem) {
  const double r = rng.uniform();
  if (r < 0.4) {
    const double m = std::round(rng.log_uniform(64, 4096)), n = std::round(rng.log_uniform(64, 4096)),
                 k = std::round(rng.log_uniform(64, 4096));
    h.kind("gemm")
        .flops(2 * m * n * k)
        .reads(elem * (m * k + k * n))
        .writes(elem * m * n)
        .params(elem * k * n);
  } else if (r < 0.6) {
    const double hw = std::round(rng.log_uniform(7, 112)), c = std::round(rng.log_uniform(32, 512)),
                 kk = std::round(rng.log_uniform(32, 512));
    const double out = hw * hw * kk, weights = 9 * c * kk;
    h.kind("conv2d")
        .flops(2 * out * 9 * c)
        .reads(elem * (hw * hw * c + weights))
        .writes(elem * out)
        .params(elem * weights);
  } else if (r < 0.9) {
    const double n = std::round(rng.log_uniform(1e4, 1e7));
    h.kind("elementwise").flops(n).reads(2 * elem * n).writes(elem * n);
  } else {
    const double n = std::round(rng.log_uniform(1e4, 1e7));
    h.kind(rng.uniform() < 0.5 ? "softmax" : "layernorm").flops(5 * n).reads(elem * n).writes(elem * n);
  }
}

} // namespace

Graph random_ml_dag(const RandomDagOptions& o) {
  Rng rng(o.seed);
  const double elem = layers::element_bytes(o.precision);
  GraphBuilder b("random-" + std::to_string(o.ops) + "-s" + std::to_string(o.seed));
  const double root = std::sqrt(static_cast<double>(o.ops));
  const double mean_width = std::max(1.0, root * o.alpha);
  std::vector<OpId> previous, current;
  int made = 0;
  while (made < o.ops) {
    const int width =
        std::min(o.ops - made, static_cast<int>(std::max<std::int64_t>(
                                   1, rng.integer(1, static_cast<std::int64_t>(2 * mean_width - 1)))));
    current.clear();
    for (int i = 0; i < width; ++i) {
      auto h = b.op("op" + std::to_string(made++));
      h.precision(o.precision);
      shape_op(h, rng, elem);
      current.push_back(h.id());
    }
    if (!previous.empty()) {
      // Every op reads from at least one op of the level above; each op of the level above feeds about
      // out_degree ops of this level. One output buffer per producer, read by all its consumers.
      std::vector<std::vector<OpId>> consumers(previous.size());
      for (std::size_t i = 0; i < current.size(); ++i)
        consumers[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(previous.size()) - 1))]
            .push_back(current[i]);
      const double extra = std::max(0.0, o.out_degree - static_cast<double>(current.size()) /
                                                            static_cast<double>(previous.size()));
      for (std::size_t p = 0; p < previous.size(); ++p) {
        const int more = static_cast<int>(std::floor(extra + rng.uniform()));
        for (int k = 0; k < more; ++k) {
          const OpId c = current[static_cast<std::size_t>(
              rng.integer(0, static_cast<std::int64_t>(current.size()) - 1))];
          if (std::find(consumers[p].begin(), consumers[p].end(), c) == consumers[p].end())
            consumers[p].push_back(c);
        }
      }
      for (std::size_t p = 0; p < previous.size(); ++p) {
        if (consumers[p].empty()) continue;
        std::sort(consumers[p].begin(), consumers[p].end());
        const OpId producer = previous[p];
        b.tensor(std::string("t").append(std::to_string(producer)), b.mutable_op(producer).bytes_written,
                 producer, consumers[p]);
      }
    }
    previous = current;
  }
  return std::move(b).build();
}

} // namespace hs

HS_REGISTER_WORKLOAD(
    random,
    hs::WorkloadBuilder{"random",
                        "layered random DAG of ML-like ops (shape as in Topcuoglu et al. 2002)",
                        {{"ops", "1000"},
                         {"alpha", "1.0"},
                         {"out_degree", "2.0"},
                         {"precision", "fp32|fp64|fp16|bf16|int8"},
                         {"seed", "<--seed>"}},
                        [](hs::WorkloadParams& p) {
                          hs::RandomDagOptions o;
                          o.ops = static_cast<int>(p.integer("ops", 1000, 1, 50'000'000));
                          o.alpha = p.number("alpha", 1.0, 0.01, 100.0);
                          o.out_degree = p.number("out_degree", 2.0, 1.0, 100.0);
                          o.precision = p.text("precision", "fp32", {"fp64", "fp32", "fp16", "bf16", "int8"});
                          o.seed = p.seed();
                          return hs::random_ml_dag(o);
                        }})
