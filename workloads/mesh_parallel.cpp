#include "workloads/mesh_parallel.hpp"

#include "workloads/layer_roles.hpp"
#include "workloads/tensor_parallel.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hs {

namespace {

// data_parallel gives replica i's copy of the step's j-th device (in order of first use) devices[i*k + j];
// the list it is handed is reordered so that this copy is the mesh's: the same position in replica i's
// block of devices as the step's device has in the first block.
std::vector<std::string> data_parallel_order(const Graph& replica, const std::vector<std::string>& devices,
                                             std::size_t k) {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t j = 0; j < k; ++j)
    position.emplace(devices[j], j);
  std::vector<std::size_t> first_use;
  std::vector<bool> seen(k);
  for (const auto& op : replica.ops) {
    if (op.allowed_devices.size() != 1) continue;
    const auto it = position.find(op.allowed_devices[0]);
    if (it != position.end() && !seen[it->second]) {
      seen[it->second] = true;
      first_use.push_back(it->second);
    }
  }
  if (first_use.size() != k) return devices; // a replica not spread over all k (data_parallel refuses it)
  std::vector<std::string> ordered;
  for (std::size_t i = 0; i < devices.size() / k; ++i)
    for (std::size_t j : first_use)
      ordered.push_back(devices[i * k + j]);
  return ordered;
}

// The step on one device: every op not already pinned is pinned to it, as any transformation places what it
// makes before a policy runs (a mesh of one would otherwise leave the policy free to pick another device).
Graph on_one_device(Graph step, const std::string& device) {
  for (Op& op : step.ops)
    if (op.allowed_devices.empty()) op.allowed_devices = {device};
  return step;
}

} // namespace

Graph tensor_pipeline_parallel(const Graph& g, int t, const PipelineOptions& o,
                               TensorParallelOptions options) {
  const int n = static_cast<int>(o.devices.size());
  if (t < 2)
    throw std::invalid_argument("tensor parallelism needs at least 2 ranks (got " + std::to_string(t) + ")");
  if (n % t != 0)
    throw std::invalid_argument(std::to_string(n) + " devices are not a whole number of stages of " +
                                std::to_string(t) + " tensor-parallel ranks");
  const int p = n / t;
  check_pipeline(p, o);
  const OpRoles roles = roles_of(g);
  if (std::none_of(roles.pass.begin(), roles.pass.end(), [](Pass x) { return x == Pass::Backward; }))
    throw std::invalid_argument("graph '" + g.name + "' has no backward pass: build it with mode=training");
  const std::vector<int> chunk =
      pipeline_stages(g, p * o.interleave,
                      "a pipeline of " + std::to_string(p) + " stages" +
                          (o.interleave > 1 ? " x " + std::to_string(o.interleave) + " chunks" : ""),
                      o.equal_layers);

  TensorParallelOptions split_options = std::move(options);
  split_options.groups.clear();
  split_options.group_of.clear();
  for (int s = 0; s < p; ++s)
    split_options.groups.emplace_back(o.devices.begin() + s * t, o.devices.begin() + (s + 1) * t);
  split_options.devices = split_options.groups.front();
  for (int c : chunk)
    split_options.group_of.push_back(c % p);
  std::vector<OpId> origin;
  const Graph split = tensor_parallel(g, split_options, origin);

  std::unordered_map<std::string, int> index;
  for (int d = 0; d < n; ++d)
    index.emplace(o.devices[static_cast<std::size_t>(d)], d);
  PipelineLayout layout{{}, {}, {}, o.devices, t};
  for (OpId y = 0; y < split.op_count(); ++y) {
    const auto x = static_cast<std::size_t>(origin[static_cast<std::size_t>(y)]);
    layout.pass.push_back(roles.pass[x]);
    layout.chunk.push_back(chunk[x]);
    layout.device.push_back(index.at(split.op(y).allowed_devices.at(0)));
  }
  return pipeline_schedule(split, layout, o, g.name + "-tp" + std::to_string(t) + schedule_suffix(p, o));
}

Graph mesh_parallel(const Graph& step, const MeshOptions& o) {
  const int k = o.tensor * o.pipeline;
  if (o.data < 1 || o.tensor < 1 || o.pipeline < 1)
    throw std::invalid_argument("every degree of the mesh must be at least 1");
  if (static_cast<int>(o.devices.size()) != o.data * k)
    throw std::invalid_argument("a mesh of dp=" + std::to_string(o.data) +
                                " x tp=" + std::to_string(o.tensor) + " x pp=" + std::to_string(o.pipeline) +
                                " needs " + std::to_string(o.data * k) + " devices (got " +
                                std::to_string(o.devices.size()) + ")");
  PipelineOptions pp = o.pipeline_options;
  pp.devices.assign(o.devices.begin(), o.devices.begin() + k);
  // Micro-batches without a pipeline are a one-stage pipeline: gradient accumulation.
  const bool scheduled = o.pipeline > 1 || pp.microbatches > 1;
  TensorParallelOptions split = o.tensor_options;
  split.devices = pp.devices;
  if (o.data < 2 && !scheduled && o.tensor == 1) return on_one_device(step, o.devices.front());
  const Graph replica = scheduled && o.tensor > 1 ? tensor_pipeline_parallel(step, o.tensor, pp, split)
                        : scheduled               ? pipeline_parallel(step, pp)
                        : o.tensor > 1            ? tensor_parallel(step, split)
                                                  : step;
  if (o.data < 2) return replica;
  DataParallelOptions dp = o.data_options;
  dp.devices = k > 1 ? data_parallel_order(replica, o.devices, static_cast<std::size_t>(k)) : o.devices;
  return data_parallel(replica, dp);
}

} // namespace hs
