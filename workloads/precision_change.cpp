#include "workloads/precision_change.hpp"

#include "workloads/layers.hpp"

namespace hs {

namespace {
bool is_floating(const std::string& precision) {
  return precision != "int8";
}
} // namespace

Graph with_precision(Graph g, const std::string& precision) {
  std::vector<double> factor(g.ops.size(), 1.0);
  for (std::size_t o = 0; o < g.ops.size(); ++o) {
    Op& op = g.ops[o];
    if (!is_floating(op.precision) || op.precision == precision) continue;
    factor[o] = layers::element_bytes(precision) / layers::element_bytes(op.precision);
    op.precision = precision;
    op.bytes_read *= factor[o];
    op.bytes_written *= factor[o];
    op.param_bytes *= factor[o];
    op.workspace_bytes *= factor[o];
  }
  for (Tensor& t : g.tensors)
    if (t.producer >= 0) t.bytes *= factor[static_cast<std::size_t>(t.producer)];
  return g;
}

} // namespace hs
