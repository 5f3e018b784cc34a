#include "workloads/data_parallel.hpp"

#include "sim/graph_builder.hpp"

#include <algorithm>
#include <map>
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

// One weight's update: its optimizer op, the gradient tensors it reads (contributions to one gradient,
// added before the all-reduce), the gradient's size, and where in the backward pass it is complete.
struct Update {
  OpId optimizer;
  std::vector<TensorId> grads;
  double bytes = 0;
  int ready = 0;
};

// Updates grouped into buckets of at least `cap` bytes in the order their gradients are complete, separately
// for each of the step's devices (a bucket is all-reduced among the replicas' copies of one device).
std::vector<std::pair<int, std::vector<Update>>> gradient_buckets(const Graph& g, double cap,
                                                                  const std::vector<std::string>& inner) {
  std::map<OpId, Update> by_optimizer;
  for (TensorId t = 0; t < g.tensor_count(); ++t)
    for (OpId c : g.tensor(t).consumers)
      if (is_optimizer(g, c)) {
        Update& u = by_optimizer.try_emplace(c, Update{c, {}, 0, 0}).first->second;
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
// optimizer ops read; or, with ZeRO-1, a reduce-scatter that leaves each rank the shard of the gradients
// whose optimizer state it holds, then an all-gather of the updated weights.
template <class Mapped>
void synchronise_bucket(GraphBuilder& b, const Graph& step, const DataParallelOptions& o, std::size_t q,
                        const std::vector<Update>& updates, const std::vector<std::string>& ranks,
                        Mapped mapped) {
  const std::size_t n = ranks.size();
  const std::string bucket = "grad_bucket" + std::to_string(q);
  collectives::CollectiveSpec spec;
  spec.op = o.zero_stage >= 1 ? collectives::Collective::ReduceScatter : collectives::Collective::AllReduce;
  spec.algorithm = o.zero_stage >= 1 ? collectives::Algorithm::Ring : o.algorithm;
  spec.group_size = o.group_size;
  spec.max_ring_steps = o.max_ring_steps;
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
    packed[r] = pack.id();
  }
  const auto reduced = collectives::append_collective(b, spec, packed);
  const double shard = o.zero_stage >= 1 ? 1.0 / static_cast<double>(n) : 1.0;
  for (std::size_t r = 0; r < n; ++r)
    for (const auto& u : updates)
      b.tensor(replica_name(r, step.op(u.optimizer).name) + ".gradient", u.bytes * shard, reduced[r],
               {mapped(r, u.optimizer)});
  if (o.zero_stage < 1) return;
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

} // namespace

Graph data_parallel(const Graph& step, const DataParallelOptions& o) {
  const std::vector<std::string> inner = step_devices(step);
  const std::size_t k = std::max<std::size_t>(1, inner.size()), n = o.devices.size() / k;
  if (o.devices.size() % k != 0)
    throw std::invalid_argument("a step spread over " + std::to_string(k) + " devices needs a multiple of " +
                                std::to_string(k) + " devices for its replicas (got " +
                                std::to_string(o.devices.size()) + ")");
  if (n < 2)
    throw std::invalid_argument("data parallelism needs at least 2 replicas (got " + std::to_string(n) + ")");
  if (!(o.bucket_bytes > 0)) throw std::invalid_argument("the gradient bucket size must be positive");
  if (o.zero_stage < 0 || o.zero_stage > 1)
    throw std::invalid_argument("ZeRO stage " + std::to_string(o.zero_stage) + " is not built (0 or 1)");
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
      if (o.zero_stage >= 1 && is_optimizer(step, op)) { // ZeRO-1: each rank updates 1/n of the weights
        const double shard = 1.0 / static_cast<double>(n);
        copy.flops *= shard;
        copy.param_bytes *= shard;
        copy.bytes_read *= shard;
        copy.bytes_written *= shard;
      }
      id[r][static_cast<std::size_t>(op)] = b.add(std::move(copy)).id();
    }
  const auto mapped = [&](std::size_t r, OpId op) { return id[r][static_cast<std::size_t>(op)]; };

  for (std::size_t r = 0; r < n; ++r)
    for (TensorId t = 0; t < step.tensor_count(); ++t) {
      const Tensor& x = step.tensor(t);
      std::vector<OpId> consumers; // a gradient reaches its optimizer op through the all-reduce instead
      for (OpId c : x.consumers)
        if (!is_optimizer(step, c)) consumers.push_back(mapped(r, c));
      if (!consumers.empty() || x.consumers.empty())
        b.tensor(replica_name(r, x.name), x.bytes, mapped(r, x.producer), consumers);
    }

  for (std::size_t q = 0; q < buckets.size(); ++q) {
    std::vector<std::string> ranks;
    for (std::size_t r = 0; r < n; ++r)
      ranks.push_back(device(r, static_cast<std::size_t>(buckets[q].first)));
    synchronise_bucket(b, step, o, q, buckets[q].second, ranks, mapped);
  }
  return std::move(b).build();
}

} // namespace hs
