#include "workloads/graph_summary.hpp"

#include "workloads/layers.hpp"

#include <algorithm>

namespace hs {

GraphSummary summarize(const Graph& g) {
  GraphSummary s;
  s.ops = g.op_count();
  s.tensors = g.tensor_count();
  for (const Op& o : g.ops) {
    s.flops += o.flops;
    s.bytes_read += o.bytes_read;
    s.bytes_written += o.bytes_written;
    if (o.kind == "optimizer") {
      s.optimizer_state_bytes += o.param_bytes;
    } else {
      s.param_bytes += o.param_bytes;
      s.parameters += o.param_bytes / layers::element_bytes(o.precision);
    }
    s.host_issue_seconds += o.host_issue;
    s.host_issued_ops += o.host_issue > 0 ? 1 : 0;
    KindTotals& k = s.by_kind[o.kind];
    ++k.ops;
    k.flops += o.flops;
    k.bytes += o.bytes_moved();
  }
  for (const Tensor& t : g.tensors)
    s.tensor_bytes += t.bytes;

  // Longest paths in topological order: by op count, by FLOPs, and by mean explicit time.
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<int> depth(n, 0);
  std::vector<double> flops(n, 0), seconds(n, 0);
  std::vector<double> mean_time(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Op& o = g.ops[i];
    for (const auto& [dev, t] : o.times)
      mean_time[i] += t / static_cast<double>(o.times.size());
  }
  for (OpId id : g.topological_order()) {
    const auto i = static_cast<std::size_t>(id);
    for (TensorId t : g.op(id).inputs) {
      const Tensor& tensor = g.tensor(t);
      const auto p = static_cast<std::size_t>(tensor.producer);
      depth[i] = std::max(depth[i], depth[p]);
      flops[i] = std::max(flops[i], flops[p]);
      seconds[i] = std::max(seconds[i], seconds[p] + tensor.comm_time.value_or(0.0));
    }
    depth[i] += 1;
    flops[i] += g.op(id).flops;
    seconds[i] += mean_time[i];
    s.depth = std::max(s.depth, depth[i]);
    s.critical_path_flops = std::max(s.critical_path_flops, flops[i]);
    s.critical_path_seconds = std::max(s.critical_path_seconds, seconds[i]);
  }
  return s;
}

} // namespace hs
