#include "workloads/pipeline_parallel.hpp"

#include "sim/graph_builder.hpp"
#include "sim/memory.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_set>

namespace hs {

namespace {

// The checkpointed block (recompute=full) of each op, by the builders' names: op "h3.attn.q" of block "h3"
// has a copy "h3.attn.q.recompute". Empty outside blocks.
std::vector<std::string> checkpointed_blocks(const Graph& g) {
  const std::string tail = ".recompute";
  std::unordered_set<std::string> recomputed;
  for (const auto& op : g.ops)
    if (has_suffix(op.name, tail)) recomputed.insert(op.name.substr(0, op.name.size() - tail.size()));
  std::vector<std::string> block(g.ops.size());
  for (std::size_t o = 0; o < g.ops.size(); ++o)
    if (recomputed.count(g.ops[o].name)) block[o] = g.ops[o].name.substr(0, g.ops[o].name.find('.'));
  return block;
}

// Megatron-LM's cut: blocks / stages checkpointed blocks per stage, in the order the blocks start.
std::vector<int> equal_layer_stages(const Graph& g, const OpRoles& r, int stages, const std::string& what) {
  const std::vector<std::string> blocks = checkpointed_blocks(g);
  std::map<std::string, int> index;
  for (OpId o : g.topological_order())
    if (!blocks[static_cast<std::size_t>(o)].empty())
      index.emplace(blocks[static_cast<std::size_t>(o)], static_cast<int>(index.size()));
  const int count = static_cast<int>(index.size());
  if (count == 0)
    throw std::invalid_argument(what + " of whole layers needs checkpointed layers: build the graph with "
                                       "recompute=full");
  if (count % stages != 0)
    throw std::invalid_argument(what + " of whole layers needs the " + std::to_string(count) +
                                " layers to divide among the " + std::to_string(stages) + " chunks");
  std::vector<int> stage(static_cast<std::size_t>(g.op_count()), 0);
  int current = 0; // ops outside blocks go with the block before them, or the first
  for (OpId o : g.topological_order()) {
    if (r.pass[static_cast<std::size_t>(o)] != Pass::Forward) continue;
    const std::string& block = blocks[static_cast<std::size_t>(o)];
    if (!block.empty()) current = index.at(block) / (count / stages);
    stage[static_cast<std::size_t>(o)] = current;
  }
  for (OpId o = 0; o < g.op_count(); ++o) {
    const OpId owner = r.owner[static_cast<std::size_t>(o)];
    if (r.pass[static_cast<std::size_t>(o)] != Pass::Forward)
      stage[static_cast<std::size_t>(o)] = owner >= 0 ? stage[static_cast<std::size_t>(owner)] : stages - 1;
  }
  return stage;
}

std::vector<int> stages_of(const Graph& g, const OpRoles& r, int stages, const std::string& what) {
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
    throw std::invalid_argument(what + " needs at least " + std::to_string(stages) + " layers (" +
                                std::to_string(forward) + " forward ops)");
  std::vector<int> stage(static_cast<std::size_t>(g.op_count()), 0);
  int s = 0, left = forward, in_stage = 0;
  double done = 0;
  const std::vector<std::string> blocks = checkpointed_blocks(g);
  std::string previous_block;
  for (OpId o : g.topological_order()) {
    if (r.pass[static_cast<std::size_t>(o)] != Pass::Forward) continue;
    // A checkpointed block runs forward again as one piece when its gradient arrives, so a cut inside it
    // would make the earlier stage's recomputation feed the later stage's backward pass: stages start
    // at a block's first op (as Megatron-LM assigns whole layers to stages) or outside blocks.
    const std::string& block = blocks[static_cast<std::size_t>(o)];
    const bool may_cut = block.empty() || block != previous_block;
    previous_block = block;
    // Move on once this stage has its share, or when every remaining op must open a stage of its own.
    const bool full = done >= total * (s + 1) / stages && may_cut;
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

std::string prefixed(int k, const std::string& name) {
  std::string out = "m";
  return out.append(std::to_string(k)).append("/").append(name); // append: GCC 12's -Wrestrict misfires on +
}

std::string pipeline_name(int p, const PipelineOptions& o) {
  return "a pipeline of " + std::to_string(p) + " stages" +
         (o.interleave > 1 ? " x " + std::to_string(o.interleave) + " chunks" : "");
}

// Between consecutive passes of device d, a barrier that the first pass's last ops feed and the next
// pass's first ops wait for. A pass is one micro-batch's forward or backward of one of the device's chunks.
void add_barriers(GraphBuilder& b, const Graph& g, const PipelineLayout& l, const PipelineOptions& o,
                  const std::vector<std::vector<OpId>>& id) {
  const int ranks = l.ranks, p = static_cast<int>(l.devices.size()) / ranks, v = o.interleave;
  const auto in_pass = [&](OpId x) { return l.pass[static_cast<std::size_t>(x)] != Pass::Optimizer; };
  const auto key = [&](OpId x) {
    return (l.device[static_cast<std::size_t>(x)] * v + l.chunk[static_cast<std::size_t>(x)] / p) * 2 +
           (l.pass[static_cast<std::size_t>(x)] == Pass::Backward);
  };
  std::vector<std::vector<OpId>> on_device(l.devices.size());
  std::vector<bool> ends(static_cast<std::size_t>(g.op_count())), begins(ends.size());
  for (OpId x = 0; x < g.op_count(); ++x) {
    if (!in_pass(x)) continue;
    const auto same = [&](OpId y) { return in_pass(y) && key(y) == key(x); };
    on_device[static_cast<std::size_t>(l.device[static_cast<std::size_t>(x)])].push_back(x);
    ends[static_cast<std::size_t>(x)] = std::none_of(g.successors(x).begin(), g.successors(x).end(), same);
    begins[static_cast<std::size_t>(x)] =
        std::none_of(g.predecessors(x).begin(), g.predecessors(x).end(), same);
  }
  for (int d = 0; d < static_cast<int>(l.devices.size()); ++d) {
    const int s = d / ranks;
    const auto order = stage_order(o.schedule, s, p, o.microbatches, v);
    const auto key_of = [&](const PipelinePass& pass) { return (d * v + pass.chunk) * 2 + pass.backward; };
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      const std::string name = "stage" + std::to_string(s) +
                               (ranks > 1 ? ".t" + std::to_string(d % ranks) : std::string()) + ".after" +
                               std::to_string(i);
      const OpId barrier =
          b.op(name).kind("barrier").pinned_to({l.devices[static_cast<std::size_t>(d)]}).id();
      const auto& from = id[static_cast<std::size_t>(order[i].microbatch)];
      const auto& to = id[static_cast<std::size_t>(order[i + 1].microbatch)];
      for (OpId x : on_device[static_cast<std::size_t>(d)]) {
        if (ends[static_cast<std::size_t>(x)] && key(x) == key_of(order[i]))
          b.tensor(name + ".from" + std::to_string(x), 0.0, from[static_cast<std::size_t>(x)], {barrier});
        if (begins[static_cast<std::size_t>(x)] && key(x) == key_of(order[i + 1]))
          b.tensor(name + ".to" + std::to_string(x), 0.0, barrier, {to[static_cast<std::size_t>(x)]});
      }
    }
  }
}

} // namespace

std::string schedule_suffix(int p, const PipelineOptions& o) {
  if (p == 1) return "-accum" + std::to_string(o.microbatches);
  std::string out = "-pp" + std::to_string(p) + "x" + std::to_string(o.microbatches);
  if (o.interleave > 1) out.append("v").append(std::to_string(o.interleave));
  return out;
}

void check_pipeline(int p, const PipelineOptions& o) {
  const int m = o.microbatches;
  if (p < 1) throw std::invalid_argument("a pipeline needs at least 1 stage (got " + std::to_string(p) + ")");
  if (p == 1 && o.interleave > 1)
    throw std::invalid_argument("interleaved chunks need a pipeline of at least 2 stages");
  if (m < 1)
    throw std::invalid_argument("a pipeline needs at least 1 micro-batch (got " + std::to_string(m) + ")");
  if (o.interleave < 1)
    throw std::invalid_argument("a pipeline needs at least 1 chunk per device (got " +
                                std::to_string(o.interleave) + ")");
  if (o.interleave > 1 && o.schedule == PipelineSchedule::GPipe)
    throw std::invalid_argument("interleaved stages run the interleaved 1F1B schedule, not GPipe");
  if (o.interleave > 1 && m % p != 0)
    throw std::invalid_argument("interleaved 1F1B needs the micro-batches (" + std::to_string(m) +
                                ") to be a multiple of the stages (" + std::to_string(p) + ")");
}

std::vector<int> pipeline_stages(const Graph& g, int chunks, const std::string& what, bool equal_layers) {
  const std::string name = what.empty() ? "a pipeline of " + std::to_string(chunks) + " stages" : what;
  const OpRoles roles = roles_of(g);
  return equal_layers ? equal_layer_stages(g, roles, chunks, name) : stages_of(g, roles, chunks, name);
}

Graph pipeline_schedule(const Graph& g, const PipelineLayout& given, const PipelineOptions& o,
                        const std::string& name) {
  // A tied weight's sum of its gradients runs once, with the optimizer pass, each summand accumulated over
  // the micro-batches first (Megatron-LM sums its first and last stages' embedding gradients once a step).
  PipelineLayout l = given;
  for (OpId x = 0; x < g.op_count(); ++x)
    if (g.op(x).name.ends_with(tied_gradient_sum_suffix))
      l.pass[static_cast<std::size_t>(x)] = Pass::Optimizer;
  const int m = o.microbatches;
  const auto device_of = [&](OpId x) {
    return l.devices[static_cast<std::size_t>(l.device[static_cast<std::size_t>(x)])];
  };
  GraphBuilder b(name);
  std::vector<std::vector<OpId>> id(static_cast<std::size_t>(m),
                                    std::vector<OpId>(static_cast<std::size_t>(g.op_count()), -1));
  for (OpId x = 0; x < g.op_count(); ++x) {
    if (l.pass[static_cast<std::size_t>(x)] == Pass::Optimizer) { // once, after every micro-batch's gradient
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
  const auto pass_of = [&](OpId x) { return l.pass[static_cast<std::size_t>(x)]; };
  // A weight's gradient is accumulated in place, as `param.grad += ...` does: micro-batch k's gradient is
  // read by micro-batch k+1's op that adds to it, and only the last one by the optimizer, so a stage holds
  // one gradient per weight, not one per micro-batch in flight.
  std::vector<bool> weight_gradient(static_cast<std::size_t>(g.tensor_count()));
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const Tensor& x = g.tensor(t);
    weight_gradient[static_cast<std::size_t>(t)] =
        pass_of(x.producer) == Pass::Backward && !x.consumers.empty() &&
        std::all_of(x.consumers.begin(), x.consumers.end(),
                    [&](OpId c) { return pass_of(c) == Pass::Optimizer; });
  }
  for (int k = 0; k < m; ++k)
    for (TensorId t = 0; t < g.tensor_count(); ++t) {
      const Tensor& x = g.tensor(t);
      if (pass_of(x.producer) == Pass::Optimizer && k > 0) continue;
      const auto& mine = id[static_cast<std::size_t>(k)];
      std::vector<OpId> consumers;
      if (weight_gradient[static_cast<std::size_t>(t)] && k + 1 < m)
        consumers.push_back(id[static_cast<std::size_t>(k) + 1][static_cast<std::size_t>(x.producer)]);
      else
        for (OpId c : x.consumers)
          consumers.push_back(mine[static_cast<std::size_t>(c)]);
      b.tensor(prefixed(k, x.name), x.bytes, mine[static_cast<std::size_t>(x.producer)], consumers);
    }
  add_barriers(b, g, l, o, id);
  return std::move(b).build();
}

Graph pipeline_parallel(const Graph& g, const PipelineOptions& o) {
  const int p = static_cast<int>(o.devices.size());
  check_pipeline(p, o);
  const OpRoles roles = roles_of(g);
  if (std::none_of(roles.pass.begin(), roles.pass.end(), [](Pass x) { return x == Pass::Backward; }))
    throw std::invalid_argument("graph '" + g.name + "' has no backward pass: build it with mode=training");
  PipelineLayout layout{roles.pass,
                        o.equal_layers ? equal_layer_stages(g, roles, p * o.interleave, pipeline_name(p, o))
                                       : stages_of(g, roles, p * o.interleave, pipeline_name(p, o)),
                        {},
                        o.devices,
                        1};
  for (int c : layout.chunk)
    layout.device.push_back(c % p);
  return pipeline_schedule(g, layout, o, g.name + schedule_suffix(p, o));
}

} // namespace hs
