#include "validation/executable_graphs.hpp"

#include "sim/graph_builder.hpp"
#include "sim/random.hpp"
#include "validation/kernel_shapes.hpp"

#include <algorithm>
#include <cmath>

namespace hs::validation {
namespace {

double pow2(Rng& rng, int lo, int hi) {
  return std::ldexp(1.0, static_cast<int>(rng.integer(lo, hi)));
}

KernelShape random_shape(Rng& rng) {
  const double r = rng.uniform();
  if (r < 0.35) {
    const auto dim = [&] { return 32.0 * std::round(rng.log_uniform(4, 24)); }; // 128 .. 768
    const double m = dim(), n = dim(), k = dim();
    return gemm_shape(m, n, k);
  }
  if (r < 0.5) {
    static const double convs[][3] = {{56, 32, 64},   {28, 64, 128},  {28, 128, 128},
                                      {14, 128, 256}, {14, 256, 256}, {7, 512, 512}};
    const auto& c = convs[rng.integer(0, 5)];
    return conv2d_shape(c[0], c[1], c[2]);
  }
  if (r < 0.75) return vector_shape("elementwise", pow2(rng, 16, 22));
  if (r < 0.85) return rows_shape("softmax", pow2(rng, 6, 12), 1024);
  if (r < 0.95) return rows_shape("layernorm", pow2(rng, 6, 12), 1024);
  return vector_shape("reduction", pow2(rng, 16, 22));
}

} // namespace

Graph executable_graph(const ExecutableGraphOptions& o) {
  Rng rng(o.seed);
  GraphBuilder b("exec-" + std::to_string(o.ops) + "-s" + std::to_string(o.seed));
  const int width = std::max(2, static_cast<int>(std::lround(std::sqrt(static_cast<double>(o.ops)))));
  std::vector<OpId> previous, current;
  int made = 0;
  while (made < o.ops) {
    const int level = std::min(o.ops - made, static_cast<int>(rng.integer(1, 2 * width - 1)));
    current.clear();
    for (int i = 0; i < level; ++i) {
      auto h = b.op("op" + std::to_string(made++));
      describe_op(b.mutable_op(h.id()), random_shape(rng));
      current.push_back(h.id());
    }
    if (!previous.empty()) {
      std::vector<std::vector<OpId>> consumers(previous.size());
      for (OpId c : current)
        consumers[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(previous.size()) - 1))]
            .push_back(c);
      for (std::size_t p = 0; p < previous.size(); ++p)
        if (rng.uniform() < 0.5) {
          const OpId c = current[static_cast<std::size_t>(
              rng.integer(0, static_cast<std::int64_t>(current.size()) - 1))];
          if (std::find(consumers[p].begin(), consumers[p].end(), c) == consumers[p].end())
            consumers[p].push_back(c);
        }
      for (std::size_t p = 0; p < previous.size(); ++p)
        if (!consumers[p].empty()) {
          const Op& producer = b.mutable_op(previous[p]);
          b.tensor(producer.name + ".out", producer.bytes_written, previous[p], consumers[p]);
        }
    }
    previous = current;
  }
  return std::move(b).build();
}

} // namespace hs::validation
