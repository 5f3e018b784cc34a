// One forward pass for a graph: the loaded checkpoint is kept per path, so a search or a comparison that
// plans many graphs reads the file once. The pass itself is gnn/net_forward.cpp's, on the checkpoint's
// weights.
#include "gnn/inference.hpp"

#include "gnn/checkpoint.hpp"
#include "gnn/proposal.hpp"

#include <map>
#include <mutex>

namespace hs::gnn {
namespace {

Dense dense_of(const torch::OrderedDict<std::string, torch::Tensor>& parameters, const std::string& name) {
  const torch::Tensor weight =
      parameters[std::string(name).append(".weight")].to(torch::kFloat32).contiguous();
  const torch::Tensor bias = parameters[std::string(name).append(".bias")].to(torch::kFloat32).contiguous();
  Dense d;
  d.weight = Eigen::Map<const Matrix>(weight.data_ptr<float>(), weight.size(0), weight.size(1));
  d.bias = Eigen::Map<const Eigen::RowVectorXf>(bias.data_ptr<float>(), bias.size(0));
  return d;
}

const NetWeights& cached_weights(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, NetWeights> nets;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = nets.find(path);
  if (it == nets.end()) it = nets.emplace(path, weights_of(load_checkpoint(path).net)).first;
  return it->second;
}

// Each op's softmax over its devices, in double as the plan's and the prior's arithmetic is.
std::vector<std::vector<double>> softmax_rows(const Matrix& logits) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(logits.rows()));
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double top = logits.row(i).maxCoeff();
    auto& row = rows[static_cast<std::size_t>(i)];
    double sum = 0;
    for (Eigen::Index k = 0; k < logits.cols(); ++k)
      sum += row.emplace_back(std::exp(static_cast<double>(logits(i, k)) - top));
    for (double& p : row)
      p /= sum;
  }
  return rows;
}

} // namespace

NetWeights weights_of(const PlacementNet& net) {
  const auto parameters = net->named_parameters();
  NetWeights w;
  w.op_in = dense_of(parameters, "op_in");
  w.pair_in = dense_of(parameters, "pair_in");
  w.pair_head_in = dense_of(parameters, "pair_head_in");
  w.head = dense_of(parameters, "head");
  w.prio = dense_of(parameters, "prio");
  for (int l = 0; l < net->shape().layers; ++l) {
    const std::string i = std::to_string(l); // .append: GCC 12's -Wrestrict misfires on +
    w.self_w.push_back(dense_of(parameters, std::string("self_w.").append(i)));
    w.pred_w.push_back(dense_of(parameters, std::string("pred_w.").append(i)));
    w.succ_w.push_back(dense_of(parameters, std::string("succ_w.").append(i)));
    w.msg_w.push_back(dense_of(parameters, std::string("msg_w.").append(i)));
  }
  for (std::size_t l = 0; l < w.self_w.size(); ++l)
    w.fused.push_back(fuse_layer(w, l));
  return w;
}

Proposal propose(const CostModel& cost, const std::string& path) {
  const ForwardResult out = forward(cached_weights(path), graph_features(cost));
  Proposal p;
  p.probability = softmax_rows(out.logits);
  for (Eigen::Index i = 0; i < out.logits.rows(); ++i) {
    Eigen::Index best = 0; // the first of equal logits, as torch's argmax takes
    out.logits.row(i).maxCoeff(&best);
    p.device.push_back(static_cast<DeviceId>(best));
    p.priority.push_back(out.priority[static_cast<std::size_t>(i)]);
  }
  return p;
}

std::vector<std::vector<double>> device_probabilities(const CostModel& cost, const std::string& path) {
  return softmax_rows(forward(cached_weights(path), graph_features(cost)).logits);
}

} // namespace hs::gnn
