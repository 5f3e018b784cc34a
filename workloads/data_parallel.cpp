#include "workloads/data_parallel.hpp"

#include "sim/graph_builder.hpp"

#include <algorithm>
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

// Gradient tensors (what optimizer ops read) in the order the backward pass makes them, grouped into
// buckets of at least `cap` bytes (the last may be smaller).
std::vector<std::vector<TensorId>> gradient_buckets(const Graph& g, double cap) {
  std::vector<TensorId> grads;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const auto& c = g.tensor(t).consumers;
    if (std::any_of(c.begin(), c.end(), [&](OpId o) { return is_optimizer(g, o); })) grads.push_back(t);
  }
  std::stable_sort(grads.begin(), grads.end(), [&](TensorId a, TensorId b) {
    return g.topological_position(g.tensor(a).producer) < g.topological_position(g.tensor(b).producer);
  });
  std::vector<std::vector<TensorId>> buckets;
  double filled = cap;
  for (TensorId t : grads) {
    if (filled >= cap) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(t);
    filled += g.tensor(t).bytes;
  }
  return buckets;
}

} // namespace

Graph data_parallel(const Graph& step, const DataParallelOptions& o) {
  const std::size_t n = o.devices.size();
  if (n < 2)
    throw std::invalid_argument("data parallelism needs at least 2 devices (got " + std::to_string(n) + ")");
  if (!(o.bucket_bytes > 0)) throw std::invalid_argument("the gradient bucket size must be positive");
  const auto buckets = gradient_buckets(step, o.bucket_bytes);
  if (buckets.empty())
    throw std::invalid_argument(
        "graph '" + step.name +
        "' has no optimizer op, so nothing to all-reduce: build it with mode=training");

  GraphBuilder b(step.name + "-dp" + std::to_string(n));
  b.reserve(n * static_cast<std::size_t>(step.op_count()) * 2,
            n * static_cast<std::size_t>(step.tensor_count()) * 2);
  std::vector<std::vector<OpId>> id(n, std::vector<OpId>(static_cast<std::size_t>(step.op_count())));
  for (std::size_t r = 0; r < n; ++r)
    for (OpId op = 0; op < step.op_count(); ++op) {
      Op copy = step.op(op).without_edges();
      copy.name = replica_name(r, copy.name);
      copy.allowed_devices = {o.devices[r]};
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

  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const std::string bucket = "grad_bucket" + std::to_string(k);
    collectives::CollectiveSpec spec;
    spec.op = collectives::Collective::AllReduce;
    spec.algorithm = o.algorithm;
    spec.group_size = o.group_size;
    spec.devices = o.devices;
    spec.name = "allreduce" + std::to_string(k);
    spec.precision = step.op(step.tensor(buckets[k].front()).producer).precision;
    spec.bytes = 0;
    for (TensorId t : buckets[k])
      spec.bytes += step.tensor(t).bytes;
    std::vector<OpId> packed(n);
    for (std::size_t r = 0; r < n; ++r) {
      auto pack = b.op(replica_name(r, bucket)).kind("collective").pinned_to({o.devices[r]});
      for (TensorId t : buckets[k])
        b.tensor(replica_name(r, step.tensor(t).name) + ".to_bucket", step.tensor(t).bytes,
                 mapped(r, step.tensor(t).producer), {pack.id()});
      packed[r] = pack.id();
    }
    const auto reduced = collectives::append_collective(b, spec, packed);
    for (std::size_t r = 0; r < n; ++r)
      for (TensorId t : buckets[k]) {
        std::vector<OpId> optimizers;
        for (OpId c : step.tensor(t).consumers)
          if (is_optimizer(step, c)) optimizers.push_back(mapped(r, c));
        b.tensor(replica_name(r, step.tensor(t).name), step.tensor(t).bytes, reduced[r], optimizers);
      }
  }
  return std::move(b).build();
}

} // namespace hs
