#include "workloads/pipeline_schedule.hpp"

#include <algorithm>

namespace hs {

namespace {

std::vector<PipelinePass> one_chunk(PipelineSchedule schedule, int s, int p, int m) {
  std::vector<PipelinePass> order;
  const auto add = [&](int k, bool backward) { order.push_back({k, 0, backward}); };
  if (schedule == PipelineSchedule::GPipe) {
    for (int k = 0; k < m; ++k)
      add(k, false);
    for (int k = 0; k < m; ++k)
      add(k, true);
    return order;
  }
  const int warmup = std::min(p - s - 1, m);
  for (int k = 0; k < warmup; ++k)
    add(k, false);
  for (int k = 0; k + warmup < m; ++k) {
    add(k + warmup, false);
    add(k, true);
  }
  for (int k = m - warmup; k < m; ++k)
    add(k, true);
  return order;
}

// The k-th forward (or backward) pass of a stage under the interleaved schedule.
PipelinePass interleaved(int k, bool backward, int p, int v) {
  const int group = k / (p * v), in_group = k % (p * v);
  const int chunk = in_group / p;
  return {group * p + k % p, backward ? v - 1 - chunk : chunk, backward};
}

} // namespace

std::vector<PipelinePass> stage_order(PipelineSchedule schedule, int s, int p, int m, int v) {
  if (v <= 1) return one_chunk(schedule, s, p, m);
  const int total = m * v;
  const int warmup = m == p ? total : std::min(total, (p - s - 1) * 2 + (v - 1) * p);
  std::vector<PipelinePass> order;
  for (int k = 0; k < warmup; ++k)
    order.push_back(interleaved(k, false, p, v));
  for (int k = 0; k + warmup < total; ++k) {
    order.push_back(interleaved(k + warmup, false, p, v));
    order.push_back(interleaved(k, true, p, v));
  }
  for (int k = std::max(0, total - warmup); k < total; ++k)
    order.push_back(interleaved(k, true, p, v));
  return order;
}

} // namespace hs
