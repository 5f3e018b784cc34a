// One forward pass for a graph: the loaded checkpoint is kept per path, so a search or a comparison that
// plans many graphs reads the file once.
#include "gnn/checkpoint.hpp"
#include "gnn/proposal.hpp"

#include <map>
#include <mutex>

namespace hs::gnn {
namespace {

PlacementNet cached_net(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, PlacementNet> nets;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = nets.find(path);
  if (it == nets.end()) it = nets.emplace(path, load_checkpoint(path).net).first;
  return it->second;
}

} // namespace

Proposal propose(const CostModel& cost, const std::string& path) {
  PlacementNet net = cached_net(path);
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  const NetOutput out = net->forward(to_tensors(graph_features(cost)));
  const auto best = out.logits.argmax(1).contiguous();
  const auto prio = out.priority.to(torch::kFloat64).contiguous();
  const auto soft = torch::softmax(out.logits.to(torch::kFloat64), 1).contiguous();
  Proposal p;
  const auto* b = best.data_ptr<int64_t>();
  const auto* q = prio.data_ptr<double>();
  const auto* v = soft.data_ptr<double>();
  const auto n = static_cast<std::size_t>(cost.graph().op_count()),
             d = static_cast<std::size_t>(soft.size(1));
  for (std::size_t i = 0; i < n; ++i) {
    p.device.push_back(static_cast<DeviceId>(b[i]));
    p.priority.push_back(q[i]);
    p.probability.emplace_back(v + i * d, v + (i + 1) * d);
  }
  return p;
}

std::vector<std::vector<double>> device_probabilities(const CostModel& cost, const std::string& path) {
  PlacementNet net = cached_net(path);
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  const NetOutput out = net->forward(to_tensors(graph_features(cost)));
  const auto p = torch::softmax(out.logits.to(torch::kFloat64), 1).contiguous();
  const auto n = static_cast<std::size_t>(p.size(0)), d = static_cast<std::size_t>(p.size(1));
  const auto* v = p.data_ptr<double>();
  std::vector<std::vector<double>> rows(n, std::vector<double>(d));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k)
      rows[i][k] = v[i * d + k];
  return rows;
}

} // namespace hs::gnn
