#include "workloads/pipeline_parallel.hpp"

#include "sim/graph_builder.hpp"
#include "workloads/layer_roles.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hs {

namespace {

std::vector<int> stages_of(const Graph& g, const OpRoles& r, int stages) {
  std::vector<double> weight(static_cast<std::size_t>(g.op_count()), 0.0);
  double total = 0;
  int forward = 0;
  for (OpId o = 0; o < g.op_count(); ++o) {
    const OpId owner = r.owner[static_cast<std::size_t>(o)];
    if (owner >= 0 && r.pass[static_cast<std::size_t>(o)] != Pass::Optimizer) {
      weight[static_cast<std::size_t>(owner)] += g.op(o).flops;
      total += g.op(o).flops;
    }
    forward += r.pass[static_cast<std::size_t>(o)] == Pass::Forward;
  }
  if (forward < stages)
    throw std::invalid_argument("a pipeline of " + std::to_string(stages) +
                                " stages needs at least as many layers (" + std::to_string(forward) +
                                " forward ops)");
  std::vector<int> stage(static_cast<std::size_t>(g.op_count()), 0);
  int s = 0, left = forward, in_stage = 0;
  double done = 0;
  for (OpId o : g.topological_order()) {
    if (r.pass[static_cast<std::size_t>(o)] != Pass::Forward) continue;
    // Move on once this stage has its share, or when every remaining op must open a stage of its own.
    const bool full = done >= total * (s + 1) / stages;
    if (s + 1 < stages && in_stage > 0 && (full || left == stages - s - 1)) {
      ++s;
      in_stage = 0;
    }
    stage[static_cast<std::size_t>(o)] = s;
    done += weight[static_cast<std::size_t>(o)];
    --left;
    ++in_stage;
  }
  for (OpId o = 0; o < g.op_count(); ++o) {
    const OpId owner = r.owner[static_cast<std::size_t>(o)];
    if (r.pass[static_cast<std::size_t>(o)] != Pass::Forward)
      stage[static_cast<std::size_t>(o)] = owner >= 0 ? stage[static_cast<std::size_t>(owner)] : stages - 1;
  }
  return stage;
}

// Each stage's passes in order: (micro-batch, backward?).
std::vector<std::pair<int, bool>> stage_order(PipelineSchedule schedule, int s, int p, int m) {
  std::vector<std::pair<int, bool>> order;
  if (schedule == PipelineSchedule::GPipe) {
    for (int k = 0; k < m; ++k)
      order.emplace_back(k, false);
    for (int k = 0; k < m; ++k)
      order.emplace_back(k, true);
    return order;
  }
  const int warmup = std::min(p - s - 1, m);
  for (int k = 0; k < warmup; ++k)
    order.emplace_back(k, false);
  for (int k = 0; k + warmup < m; ++k) {
    order.emplace_back(k + warmup, false);
    order.emplace_back(k, true);
  }
  for (int k = m - warmup; k < m; ++k)
    order.emplace_back(k, true);
  return order;
}

std::string prefixed(int k, const std::string& name) {
  std::string out = "m";
  return out.append(std::to_string(k)).append("/").append(name); // append: GCC 12's -Wrestrict misfires on +
}

} // namespace

std::vector<int> pipeline_stages(const Graph& g, int stages) {
  return stages_of(g, roles_of(g), stages);
}

Graph pipeline_parallel(const Graph& g, const PipelineOptions& o) {
  const int p = static_cast<int>(o.devices.size()), m = o.microbatches;
  if (p < 2)
    throw std::invalid_argument("a pipeline needs at least 2 stages (got " + std::to_string(p) + ")");
  if (m < 1)
    throw std::invalid_argument("a pipeline needs at least 1 micro-batch (got " + std::to_string(m) + ")");
  const OpRoles roles = roles_of(g);
  if (std::none_of(roles.pass.begin(), roles.pass.end(), [](Pass x) { return x == Pass::Backward; }))
    throw std::invalid_argument("graph '" + g.name + "' has no backward pass: build it with mode=training");
  const std::vector<int> stage = stages_of(g, roles, p);
  const auto role = [&](OpId x) { return roles.pass[static_cast<std::size_t>(x)]; };
  const auto stage_of = [&](OpId x) { return stage[static_cast<std::size_t>(x)]; };
  const auto device_of = [&](OpId x) { return o.devices[static_cast<std::size_t>(stage_of(x))]; };

  GraphBuilder b(g.name + "-pp" + std::to_string(p) + "x" + std::to_string(m));
  std::vector<std::vector<OpId>> id(static_cast<std::size_t>(m),
                                    std::vector<OpId>(static_cast<std::size_t>(g.op_count()), -1));
  for (OpId x = 0; x < g.op_count(); ++x) {
    if (role(x) == Pass::Optimizer) { // once, after every micro-batch's gradient
      Op copy = g.op(x).without_edges();
      copy.allowed_devices = {device_of(x)};
      const OpId once = b.add(std::move(copy)).id();
      for (auto& per : id)
        per[static_cast<std::size_t>(x)] = once;
      continue;
    }
    for (int k = 0; k < m; ++k) {
      Op copy = g.op(x).without_edges();
      copy.name = prefixed(k, copy.name);
      copy.allowed_devices = {device_of(x)};
      if (k > 0) copy.param_bytes = 0; // a stage holds its weights once
      id[static_cast<std::size_t>(k)][static_cast<std::size_t>(x)] = b.add(std::move(copy)).id();
    }
  }
  for (int k = 0; k < m; ++k)
    for (TensorId t = 0; t < g.tensor_count(); ++t) {
      const Tensor& x = g.tensor(t);
      if (role(x.producer) == Pass::Optimizer && k > 0) continue;
      std::vector<OpId> consumers;
      for (OpId c : x.consumers)
        consumers.push_back(id[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)]);
      b.tensor(prefixed(k, x.name), x.bytes,
               id[static_cast<std::size_t>(k)][static_cast<std::size_t>(x.producer)], consumers);
    }

  // The schedule: between consecutive passes of a stage, a barrier that the first pass's last ops feed and
  // the next pass's first ops wait for.
  for (int s = 0; s < p; ++s) {
    const auto order = stage_order(o.schedule, s, p, m);
    const auto in_pass = [&](OpId x, bool backward) {
      return stage_of(x) == s && role(x) == (backward ? Pass::Backward : Pass::Forward);
    };
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      // Plain variables, not a structured binding: clang 14 cannot capture one in the lambdas below.
      const int k1 = order[i].first, k2 = order[i + 1].first;
      const bool back1 = order[i].second, back2 = order[i + 1].second;
      const std::string name = "stage" + std::to_string(s) + ".after" + std::to_string(i);
      auto barrier = b.op(name).kind("barrier").pinned_to({o.devices[static_cast<std::size_t>(s)]});
      for (OpId x = 0; x < g.op_count(); ++x) {
        if (in_pass(x, back1)) {
          const auto& next = g.successors(x);
          if (std::none_of(next.begin(), next.end(), [&](OpId y) { return in_pass(y, back1); }))
            b.tensor(name + ".from" + std::to_string(x), 0.0,
                     id[static_cast<std::size_t>(k1)][static_cast<std::size_t>(x)], {barrier.id()});
        }
        if (in_pass(x, back2)) {
          const auto& before = g.predecessors(x);
          if (std::none_of(before.begin(), before.end(), [&](OpId y) { return in_pass(y, back2); }))
            b.tensor(name + ".to" + std::to_string(x), 0.0, barrier.id(),
                     {id[static_cast<std::size_t>(k2)][static_cast<std::size_t>(x)]});
        }
      }
    }
  }
  return std::move(b).build();
}

} // namespace hs
