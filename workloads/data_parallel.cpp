#include "workloads/data_parallel.hpp"

#include "sim/graph_builder.hpp"
#include "sim/memory.hpp"
#include "workloads/layer_roles.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace hs {

namespace {

std::string replica_name(std::size_t r, const std::string& name) {
  std::string out = "r";
  return out.append(std::to_string(r)).append("/").append(name); // append: GCC 12's -Wrestrict misfires on +
}

bool is_optimizer(const Graph& g, OpId o) {
  return g.op(o).kind == "optimizer";
}

// Whether `c` reads tensor `t` as a gradient the backward pass left: an op of the optimizer pass (an update,
// or clipping's norm and scale) reading what the backward pass wrote. Such a read is what the all-reduce
// stands between. The update reading a clipped gradient reads its own rank's copy.
bool reads_gradient(const Graph& g, TensorId t, OpId c) {
  return in_optimizer_pass(g.op(c)) && !in_optimizer_pass(g.op(g.tensor(t).producer));
}

// The devices `step` is already pinned to, in order of first use (none: a step on one device).
std::vector<std::string> step_devices(const Graph& step) {
  std::vector<std::string> devices;
  bool unpinned = false;
  for (const auto& op : step.ops) {
    if (op.allowed_devices.size() != 1) {
      unpinned = true;
      continue;
    }
    if (std::find(devices.begin(), devices.end(), op.allowed_devices[0]) == devices.end())
      devices.push_back(op.allowed_devices[0]);
  }
  if (unpinned && !devices.empty())
    throw std::invalid_argument("graph '" + step.name + "' pins some ops to one device and not others");
  return devices;
}

// One weight's update: the first op that reads its gradient (its optimizer op; with clipping, the norm
// of it), every op that reads the gradient, the gradient tensors (contributions to one gradient, added
// before the all-reduce), the gradient's size, and where in the backward pass it is complete.
struct Update {
  OpId optimizer;
  std::vector<OpId> readers;
  std::vector<TensorId> grads;
  double bytes = 0;
  int ready = 0;
};

// Updates grouped into buckets of at least `cap` bytes in the order their gradients are complete, separately
// for each of the step's devices (a bucket is all-reduced among the replicas' copies of one device).
std::vector<std::pair<int, std::vector<Update>>> gradient_buckets(const Graph& g, double cap,
                                                                  const std::vector<std::string>& inner) {
  std::map<OpId, Update> by_optimizer;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    std::vector<OpId> readers;
    for (OpId c : g.tensor(t).consumers)
      if (reads_gradient(g, t, c)) readers.push_back(c);
    if (readers.empty()) continue;
    const OpId first = *std::min_element(readers.begin(), readers.end());
    Update& u = by_optimizer.try_emplace(first, Update{first, readers, {}, 0, 0}).first->second;
    u.grads.push_back(t);
    u.bytes = std::max(u.bytes, g.tensor(t).bytes);
    u.ready = std::max(u.ready, g.topological_position(g.tensor(t).producer));
  }
  std::map<int, std::vector<Update>> per_device;
  for (auto& [op, u] : by_optimizer) {
    const auto& pin = g.op(op).allowed_devices;
    const auto j = pin.empty() ? 0 : std::find(inner.begin(), inner.end(), pin[0]) - inner.begin();
    per_device[static_cast<int>(j)].push_back(std::move(u));
  }
  std::vector<std::pair<int, std::vector<Update>>> buckets;
  for (auto& [j, updates] : per_device) {
    std::stable_sort(updates.begin(), updates.end(),
                     [](const Update& a, const Update& b) { return a.ready < b.ready; });
    double filled = cap;
    for (auto& u : updates) {
      if (filled >= cap) {
        buckets.emplace_back(j, std::vector<Update>{});
        filled = 0;
      }
      filled += u.bytes;
      buckets.back().second.push_back(std::move(u));
    }
  }
  return buckets;
}

// Bucket q's gradients, from every replica, into one collective: an all-reduce whose result each replica's
// optimizer ops read; or, with ZeRO, a reduce-scatter that leaves each rank the shard of the gradients
// whose optimizer state it holds. ZeRO-1 keeps the whole gradient buffer until its optimizer step (only the
// optimizer state is sharded); ZeRO-2 frees all but its shard. Both then all-gather the updated weights;
// ZeRO-3 does not, since each rank keeps only its shard of the weights (see gather_weights).
// `ready[r]`, where not -1, is an op of rank r that the bucket waits for as well (overlap off).
template <class Mapped>
void synchronise_bucket(GraphBuilder& b, const Graph& step, const DataParallelOptions& o, std::size_t q,
                        const std::vector<Update>& updates, const std::vector<std::string>& ranks,
                        const std::vector<OpId>& ready, Mapped mapped) {
  const std::size_t n = ranks.size();
  const std::string bucket = "grad_bucket" + std::to_string(q);
  collectives::CollectiveSpec spec;
  spec.op = o.zero_stage >= 1 ? collectives::Collective::ReduceScatter : collectives::Collective::AllReduce;
  spec.algorithm = o.zero_stage >= 1 ? collectives::Algorithm::Ring : o.algorithm;
  spec.group_size = o.group_size;
  spec.max_ring_steps = o.max_ring_steps;
  spec.channels = o.channels;
  spec.ring_ranks = o.represented_replicas;
  spec.devices = ranks;
  spec.name = (o.zero_stage >= 1 ? "reducescatter" : "allreduce") + std::to_string(q);
  spec.precision = step.op(updates.front().optimizer).precision;
  for (const auto& u : updates)
    spec.bytes += u.bytes;
  std::vector<OpId> packed(n);
  for (std::size_t r = 0; r < n; ++r) {
    auto pack = b.op(replica_name(r, bucket)).kind("collective").pinned_to({ranks[r]});
    for (const auto& u : updates)
      for (TensorId t : u.grads)
        b.tensor(replica_name(r, step.tensor(t).name) + ".to_bucket", step.tensor(t).bytes,
                 mapped(r, step.tensor(t).producer), {pack.id()});
    if (ready[r] >= 0) b.tensor(replica_name(r, bucket) + ".after_backward", 0.0, ready[r], {pack.id()});
    packed[r] = pack.id();
  }
  const auto reduced = collectives::append_collective(b, spec, packed);
  const double shard = o.zero_stage >= 2 ? 1.0 / static_cast<double>(n) : 1.0;
  for (std::size_t r = 0; r < n; ++r)
    for (const auto& u : updates) {
      std::vector<OpId> readers;
      for (OpId c : u.readers)
        readers.push_back(mapped(r, c));
      b.tensor(replica_name(r, step.op(u.optimizer).name) + ".gradient", u.bytes * shard, reduced[r],
               readers);
    }
  if (o.zero_stage < 1 || o.zero_stage >= 3) return;
  std::vector<OpId> updated(n); // each rank's updated shard of the bucket's weights, gathered by all
  for (std::size_t r = 0; r < n; ++r) {
    auto done = b.op(replica_name(r, bucket + ".updated")).kind("collective").pinned_to({ranks[r]});
    for (const auto& u : updates)
      b.tensor(replica_name(r, step.op(u.optimizer).name) + ".updated", 0.0, mapped(r, u.optimizer),
               {done.id()});
    updated[r] = done.id();
  }
  spec.op = collectives::Collective::AllGather;
  spec.name = "allgather" + std::to_string(q);
  collectives::append_collective(b, spec, updated);
}

// ZeRO-3: one use of a bucket's weights, forward or backward, by the ops that read them: the layers that
// own or share a weight (found by the builders' names: a weight's gradient comes from "L.wgrad", whose
// layer is "L") in the forward pass; their weight- and data-gradient ops ("L.wgrad", "L.dgrad") and any
// recomputation ("L.recompute") in the backward pass. `first` is the earliest user's topological position.
struct WeightUse {
  std::size_t bucket = 0;
  std::vector<OpId> users;
  int first = 0;
};

// The tensors the weight-gradient ops wrote that `t` is: itself, or, where a tied weight's gradients were
// summed (".gradacc"), the ones summed.
void weight_gradient_parts(const Graph& g, TensorId t, std::vector<TensorId>& out) {
  const Op& producer = g.op(g.tensor(t).producer);
  if (!producer.name.ends_with(tied_gradient_sum_suffix)) {
    out.push_back(t);
    return;
  }
  for (TensorId part : producer.inputs)
    weight_gradient_parts(g, part, out);
}

std::vector<WeightUse> weight_uses(const Graph& g,
                                   const std::vector<std::pair<int, std::vector<Update>>>& buckets) {
  std::map<std::string, OpId> by_name;
  for (OpId o = 0; o < g.op_count(); ++o)
    by_name.emplace(g.op(o).name, o);
  const std::string wgrad = ".wgrad";
  std::vector<WeightUse> uses;
  for (std::size_t q = 0; q < buckets.size(); ++q) {
    std::set<OpId> forward, backward;
    std::vector<TensorId> parts;
    for (const auto& u : buckets[q].second)
      for (TensorId summed : u.grads)
        weight_gradient_parts(g, summed, parts);
    for (TensorId t : parts) {
      const OpId producer = g.tensor(t).producer;
      const std::string& name = g.op(producer).name;
      backward.insert(producer);
      if (name.size() <= wgrad.size() || name.compare(name.size() - wgrad.size(), wgrad.size(), wgrad) != 0)
        continue;
      const std::string layer = name.substr(0, name.size() - wgrad.size());
      if (auto it = by_name.find(layer); it != by_name.end()) forward.insert(it->second);
      for (const char* pass : {".dgrad", ".recompute"})
        if (auto it = by_name.find(layer + pass); it != by_name.end()) backward.insert(it->second);
    }
    if (forward.empty())
      throw std::invalid_argument("ZeRO-3 gathers each weight before the layer that reads it, and graph '" +
                                  g.name + "' names no layer for the gradients of '" +
                                  g.op(buckets[q].second.front().optimizer).name +
                                  "' (a builder's \"L.wgrad\" of layer \"L\")");
    for (const auto* users : {&forward, &backward}) {
      WeightUse use{q, {users->begin(), users->end()}, g.topological_position(*users->begin())};
      for (OpId o : use.users)
        use.first = std::min(use.first, g.topological_position(o));
      uses.push_back(std::move(use));
    }
  }
  std::stable_sort(uses.begin(), uses.end(),
                   [](const WeightUse& a, const WeightUse& b) { return a.first < b.first; });
  return uses;
}

// ZeRO-3 keeps 1/n of every weight on each rank. Before each use, its bucket's weights are all-gathered
// (ring) into a whole copy that every user on the rank reads and that is freed after the last; each gather
// starts when the previous use's first reader ends, so it overlaps that use's compute (a prefetch one use
// ahead) and at most about two buckets of whole weights are live at once.
template <class Mapped>
void gather_weights(GraphBuilder& b, const Graph& step, const DataParallelOptions& o,
                    const std::vector<std::pair<int, std::vector<Update>>>& buckets,
                    const std::vector<std::vector<std::string>>& ranks, Mapped mapped) {
  const auto uses = weight_uses(step, buckets);
  std::map<int, OpId> previous_first; // per step device: the previous use's first reader, in the step
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const WeightUse& use = uses[i];
    const int j = buckets[use.bucket].first;
    const std::size_t n = ranks[use.bucket].size();
    collectives::CollectiveSpec spec;
    spec.op = collectives::Collective::AllGather;
    spec.max_ring_steps = o.max_ring_steps;
    spec.channels = o.channels;
    spec.devices = ranks[use.bucket];
    spec.name = std::string(gathered_weights_prefix) + std::to_string(i);
    spec.precision = step.op(buckets[use.bucket].second.front().optimizer).precision;
    for (const auto& u : buckets[use.bucket].second)
      spec.bytes += u.bytes; // a weight's gradient has its size and precision
    std::vector<OpId> after(n, -1);
    if (auto it = previous_first.find(j); it != previous_first.end())
      for (std::size_t r = 0; r < n; ++r)
        after[r] = mapped(r, it->second);
    const auto gathered = collectives::append_collective(b, spec, after);
    for (std::size_t r = 0; r < n; ++r) {
      std::vector<OpId> readers;
      for (OpId u : use.users)
        readers.push_back(mapped(r, u));
      b.tensor(replica_name(r, spec.name) + ".weights", spec.bytes, gathered[r], readers);
    }
    previous_first[j] = *std::min_element(use.users.begin(), use.users.end(), [&](OpId a, OpId c) {
      return step.topological_position(a) < step.topological_position(c);
    });
  }
}

// Overlap off: per replica and step device, a barrier that every gradient of the device's buckets feeds,
// so that no bucket of the device is reduced before its whole backward pass is done. done[j][r] is
// replica r's barrier for step device j (-1 where the device has no bucket).
template <class Device, class Mapped>
std::vector<std::vector<OpId>> backward_done(GraphBuilder& b, const Graph& step,
                                             const std::vector<std::pair<int, std::vector<Update>>>& buckets,
                                             std::size_t replicas, Device device, Mapped mapped) {
  std::map<int, std::set<OpId>> producers; // per step device
  for (const auto& [j, updates] : buckets)
    for (const auto& u : updates)
      for (TensorId t : u.grads)
        producers[j].insert(step.tensor(t).producer);
  std::vector<std::vector<OpId>> done;
  for (const auto& [j, ops] : producers) {
    done.resize(static_cast<std::size_t>(j) + 1, std::vector<OpId>(replicas, -1));
    for (std::size_t r = 0; r < replicas; ++r) {
      const std::string name = replica_name(r, "backward_done.d" + std::to_string(j));
      const OpId barrier =
          b.op(name).kind("barrier").pinned_to({device(r, static_cast<std::size_t>(j))}).id();
      for (OpId producer : ops)
        b.tensor(name + ".from" + std::to_string(producer), 0.0, mapped(r, producer), {barrier});
      done[static_cast<std::size_t>(j)][r] = barrier;
    }
  }
  return done;
}

} // namespace

Graph data_parallel(const Graph& step, const DataParallelOptions& o) {
  if (o.zero_stage >= 1) refuse_clipped_gradients(step, "ZeRO");
  const std::vector<std::string> inner = step_devices(step);
  const std::size_t k = std::max<std::size_t>(1, inner.size()), n = o.devices.size() / k;
  if (o.devices.size() % k != 0)
    throw std::invalid_argument("a step spread over " + std::to_string(k) + " devices needs a multiple of " +
                                std::to_string(k) + " devices for its replicas (got " +
                                std::to_string(o.devices.size()) + ")");
  if (n < 2)
    throw std::invalid_argument("data parallelism needs at least 2 replicas (got " + std::to_string(n) + ")");
  if (!(o.bucket_bytes > 0)) throw std::invalid_argument("the gradient bucket size must be positive");
  if (o.zero_stage < 0 || o.zero_stage > 3)
    throw std::invalid_argument("ZeRO stage " + std::to_string(o.zero_stage) + " does not exist (0 to 3)");
  if (o.represented_replicas != 0 && o.represented_replicas < static_cast<int>(n))
    throw std::invalid_argument(std::to_string(n) + " replicas cannot stand for " +
                                std::to_string(o.represented_replicas));
  if (o.represented_replicas > static_cast<int>(n) && (o.zero_stage > 0 || o.channels > 1))
    throw std::invalid_argument("replicas standing for more are folded rings: no ZeRO and one channel");
  const auto buckets = gradient_buckets(step, o.bucket_bytes, inner);
  if (buckets.empty())
    throw std::invalid_argument(
        "graph '" + step.name +
        "' has no optimizer op, so nothing to all-reduce: build it with mode=training");
  // Replica r's copy of the step's device j.
  const auto device = [&](std::size_t r, std::size_t j) { return o.devices[r * k + j]; };
  const auto device_of = [&](std::size_t r, OpId op) {
    const auto& pin = step.op(op).allowed_devices;
    return device(r, pin.empty() ? 0
                                 : static_cast<std::size_t>(std::find(inner.begin(), inner.end(), pin[0]) -
                                                            inner.begin()));
  };

  GraphBuilder b(step.name + "-dp" + std::to_string(n));
  b.reserve(n * static_cast<std::size_t>(step.op_count()) * 2,
            n * static_cast<std::size_t>(step.tensor_count()) * 2);
  std::vector<std::vector<OpId>> id(n, std::vector<OpId>(static_cast<std::size_t>(step.op_count())));
  for (std::size_t r = 0; r < n; ++r)
    for (OpId op = 0; op < step.op_count(); ++op) {
      Op copy = step.op(op).without_edges();
      copy.name = replica_name(r, copy.name);
      copy.allowed_devices = {device_of(r, op)};
      const double shard = 1.0 / static_cast<double>(n);
      if (o.zero_stage >= 1 && is_optimizer(step, op)) { // ZeRO: each rank updates 1/n of the weights
        copy.flops *= shard;
        copy.param_bytes *= shard;
        copy.workspace_bytes *= shard; // the shard's own: Megatron's main gradient, AdamW's sqrt(v)
        copy.bytes_read *= shard;
        copy.bytes_written *= shard;
      } else if (o.zero_stage >= 3) { // and ZeRO-3 keeps only 1/n of them
        copy.param_bytes *= shard;
      }
      id[r][static_cast<std::size_t>(op)] = b.add(std::move(copy)).id();
    }
  const auto mapped = [&](std::size_t r, OpId op) { return id[r][static_cast<std::size_t>(op)]; };

  for (std::size_t r = 0; r < n; ++r)
    for (TensorId t = 0; t < step.tensor_count(); ++t) {
      const Tensor& x = step.tensor(t);
      std::vector<OpId> consumers; // a gradient reaches its optimizer pass through the all-reduce instead
      for (OpId c : x.consumers)
        if (!reads_gradient(step, t, c)) consumers.push_back(mapped(r, c));
      if (!consumers.empty() || x.consumers.empty())
        b.tensor(replica_name(r, x.name), x.bytes, mapped(r, x.producer), consumers);
    }

  const auto done =
      o.overlap ? std::vector<std::vector<OpId>>{} : backward_done(b, step, buckets, n, device, mapped);
  const std::vector<OpId> no_wait(n, -1);
  std::vector<std::vector<std::string>> ranks(buckets.size());
  for (std::size_t q = 0; q < buckets.size(); ++q) {
    const auto j = static_cast<std::size_t>(buckets[q].first);
    for (std::size_t r = 0; r < n; ++r)
      ranks[q].push_back(device(r, j));
    synchronise_bucket(b, step, o, q, buckets[q].second, ranks[q], o.overlap ? no_wait : done[j], mapped);
  }
  if (o.zero_stage >= 3) gather_weights(b, step, o, buckets, ranks, mapped);
  return std::move(b).build();
}

} // namespace hs
