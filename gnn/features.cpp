#include "gnn/features.hpp"

#include "sim/op_kinds.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace hs::gnn {
namespace {

const std::vector<std::string>& gnn_precisions() {
  static const std::vector<std::string> p = {"fp32", "fp16", "bf16", "int8"};
  return p;
}

// log10(1 + x) scaled so that typical magnitudes (1e3..1e12) land near [0, 1].
float gnn_log_scaled(double x, double decades) {
  return static_cast<float>(std::log10(1.0 + std::max(0.0, x)) / decades);
}

float gnn_ratio_log(double x, double ref) {
  if (!(ref > 0.0) || !std::isfinite(x)) return 0.0f;
  return static_cast<float>(std::log(std::max(x, 1e-30) / ref));
}

double gnn_mean_op_time(const CostModel& cost) {
  double sum = 0.0;
  const int n = cost.graph().op_count();
  for (OpId i = 0; i < n; ++i)
    sum += cost.mean_op_time(i);
  return n > 0 && sum > 0.0 ? sum / n : 1.0;
}

void gnn_op_row(const CostModel& cost, OpId i, double mean_time, float* row) {
  const Graph& g = cost.graph();
  const Op& op = g.op(i);
  int k = 0;
  row[k++] = gnn_log_scaled(op.flops, 12.0);
  row[k++] = gnn_log_scaled(op.bytes_moved(), 10.0);
  row[k++] = gnn_log_scaled(op.param_bytes, 10.0);
  row[k++] = gnn_log_scaled(op.workspace_bytes, 10.0);
  const auto& precisions = gnn_precisions();
  for (const auto& p : precisions)
    row[k++] = op.precision == p ? 1.0f : 0.0f;
  const auto& kinds = known_op_kinds();
  const auto kind = std::find(kinds.begin(), kinds.end(), op.kind);
  for (std::size_t j = 0; j <= kinds.size(); ++j)
    row[k++] = static_cast<std::size_t>(kind - kinds.begin()) == j ? 1.0f : 0.0f;
  row[k++] = op.allowed_devices.empty() ? 0.0f : 1.0f;
  row[k++] = gnn_log_scaled(static_cast<double>(g.predecessors(i).size()), 1.0);
  row[k++] = gnn_log_scaled(static_cast<double>(g.successors(i).size()), 1.0);
  row[k++] = static_cast<float>(g.topological_position(i)) / static_cast<float>(std::max(1, g.op_count()));
  row[k++] = 0.25f * gnn_ratio_log(cost.mean_op_time(i), mean_time);
}

void gnn_pair_rows(const CostModel& cost, OpId i, double mean_time, double resident, float* rows,
                   unsigned char* ok) {
  const auto& devices = cost.platform().devices;
  double best = kInfeasible;
  for (DeviceId d = 0; d < static_cast<DeviceId>(devices.size()); ++d)
    best = std::min(best, cost.op_time(i, d));
  const int width = pair_feature_count();
  for (DeviceId d = 0; d < static_cast<DeviceId>(devices.size()); ++d) {
    float* row = rows + static_cast<std::size_t>(d) * static_cast<std::size_t>(width);
    const bool feasible = cost.feasible(i, d);
    const double t = cost.op_time(i, d);
    const auto& kind = devices[static_cast<std::size_t>(d)].kind;
    ok[d] = feasible ? 1 : 0;
    row[0] = feasible ? std::min(2.0f, 0.25f * gnn_ratio_log(t, best)) : 2.0f;
    row[1] = feasible ? 1.0f : 0.0f;
    row[2] = feasible && t <= best ? 1.0f : 0.0f;
    row[3] = feasible ? 0.25f * gnn_ratio_log(t, mean_time) : 0.0f;
    row[4] = kind == "cpu" ? 1.0f : 0.0f;
    row[5] = kind == "gpu" ? 1.0f : 0.0f;
    row[6] = kind != "cpu" && kind != "gpu" ? 1.0f : 0.0f;
    row[7] = 0.25f * gnn_ratio_log(devices[static_cast<std::size_t>(d)].memory_capacity, resident);
  }
}

} // namespace

int op_feature_count() {
  return 4 + static_cast<int>(gnn_precisions().size()) + static_cast<int>(known_op_kinds().size()) + 1 + 5;
}
int pair_feature_count() {
  return 8;
}
int edge_feature_count() {
  return 1;
}

GraphFeatures graph_features(const CostModel& cost) {
  const Graph& g = cost.graph();
  GraphFeatures f;
  f.ops = g.op_count();
  f.devices = static_cast<int>(cost.platform().devices.size());
  const auto n = static_cast<std::size_t>(f.ops);
  const auto nd = n * static_cast<std::size_t>(f.devices);
  f.op.assign(n * static_cast<std::size_t>(op_feature_count()), 0.0f);
  f.pair.assign(nd * static_cast<std::size_t>(pair_feature_count()), 0.0f);
  f.ok.assign(nd, 0);
  const double mean_time = gnn_mean_op_time(cost);
  double resident = 1.0;
  for (const Op& op : g.ops)
    resident += op.param_bytes + op.bytes_written;
  for (OpId i = 0; i < f.ops; ++i) {
    const auto row = static_cast<std::size_t>(i);
    gnn_op_row(cost, i, mean_time, f.op.data() + row * static_cast<std::size_t>(op_feature_count()));
    gnn_pair_rows(cost, i, mean_time, resident,
                  f.pair.data() + row * static_cast<std::size_t>(f.devices * pair_feature_count()),
                  f.ok.data() + row * static_cast<std::size_t>(f.devices));
  }
  f.in_degree.assign(n, 0.0f);
  f.out_degree.assign(n, 0.0f);
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& tensor = g.tensor(t);
    if (tensor.producer < 0) continue;
    const double c = cost.mean_transfer_time(t);
    for (OpId consumer : tensor.consumers) {
      f.edge_src.push_back(tensor.producer);
      f.edge_dst.push_back(consumer);
      f.edge.push_back(static_cast<float>(std::log1p(std::max(0.0, c) / mean_time)));
      f.in_degree[static_cast<std::size_t>(consumer)] += 1.0f;
      f.out_degree[static_cast<std::size_t>(tensor.producer)] += 1.0f;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    f.in_degree[i] = std::max(1.0f, f.in_degree[i]);
    f.out_degree[i] = std::max(1.0f, f.out_degree[i]);
  }
  return f;
}

} // namespace hs::gnn
