#include "gnn/model.hpp"

namespace hs::gnn {

FeatureTensors to_tensors(const GraphFeatures& f) {
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  const long n = f.ops, d = f.devices, e = static_cast<long>(f.edge_src.size());
  FeatureTensors t;
  // from_blob does not own the data: clone so the tensors outlive `f`.
  auto* op = const_cast<float*>(f.op.data());
  t.op = torch::from_blob(op, {n, op_feature_count()}, opts).clone();
  auto* pair = const_cast<float*>(f.pair.data());
  t.pair = torch::from_blob(pair, {n, d, pair_feature_count()}, opts).clone();
  std::vector<float> ok(f.ok.begin(), f.ok.end());
  t.mask = torch::from_blob(ok.data(), {n, d}, opts).clone().gt(0.5);
  auto* src = const_cast<long*>(f.edge_src.data());
  auto* dst = const_cast<long*>(f.edge_dst.data());
  t.src = torch::from_blob(src, {e}, torch::kInt64).clone();
  t.dst = torch::from_blob(dst, {e}, torch::kInt64).clone();
  auto* edge = const_cast<float*>(f.edge.data());
  t.edge = torch::from_blob(edge, {e, edge_feature_count()}, opts).clone();
  auto* in = const_cast<float*>(f.in_degree.data());
  auto* out = const_cast<float*>(f.out_degree.data());
  t.in_degree = torch::from_blob(in, {n, 1}, opts).clone();
  t.out_degree = torch::from_blob(out, {n, 1}, opts).clone();
  return t;
}

PlacementNetImpl::PlacementNetImpl(NetShape shape) : shape_(shape) {
  const long h = shape.hidden;
  op_in = register_module("op_in", torch::nn::Linear(shape.op_features, h));
  pair_in = register_module("pair_in", torch::nn::Linear(shape.pair_features, h));
  pair_head_in = register_module("pair_head_in", torch::nn::Linear(shape.pair_features, h));
  head = register_module("head", torch::nn::Linear(h, 1));
  prio = register_module("prio", torch::nn::Linear(h, 1));
  self_w = register_module("self_w", torch::nn::ModuleList());
  pred_w = register_module("pred_w", torch::nn::ModuleList());
  succ_w = register_module("succ_w", torch::nn::ModuleList());
  msg_w = register_module("msg_w", torch::nn::ModuleList());
  for (int l = 0; l < shape.layers; ++l) {
    self_w->push_back(torch::nn::Linear(h, h));
    pred_w->push_back(torch::nn::Linear(h, h));
    succ_w->push_back(torch::nn::Linear(h, h));
    msg_w->push_back(torch::nn::Linear(h + shape.edge_features, h));
  }
}

NetOutput PlacementNetImpl::forward(const FeatureTensors& x) {
  const long n = x.op.size(0);
  const auto maskf = x.mask.to(torch::kFloat32).unsqueeze(-1); // [n, d, 1]
  // The platform as the op sees it: the mean encoding of its feasible devices.
  const auto device_context = (pair_in->forward(x.pair) * maskf).sum(1) / maskf.sum(1).clamp_min(1.0);
  auto h = torch::relu(op_in->forward(x.op) + device_context);
  for (int l = 0; l < shape_.layers; ++l) {
    const auto li = static_cast<std::size_t>(l);
    auto to_consumer =
        msg_w[li]->as<torch::nn::Linear>()->forward(torch::cat({h.index_select(0, x.src), x.edge}, 1));
    auto to_producer =
        msg_w[li]->as<torch::nn::Linear>()->forward(torch::cat({h.index_select(0, x.dst), x.edge}, 1));
    auto from_preds = torch::zeros({n, h.size(1)}).index_add(0, x.dst, to_consumer) / x.in_degree;
    auto from_succs = torch::zeros({n, h.size(1)}).index_add(0, x.src, to_producer) / x.out_degree;
    h = h + torch::relu(self_w[li]->as<torch::nn::Linear>()->forward(h) +
                        pred_w[li]->as<torch::nn::Linear>()->forward(from_preds) +
                        succ_w[li]->as<torch::nn::Linear>()->forward(from_succs));
  }
  const auto pair_h = torch::relu(h.unsqueeze(1) + pair_head_in->forward(x.pair)); // [n, d, H]
  auto logits = head->forward(pair_h).squeeze(-1).masked_fill(x.mask.logical_not(), -1e9);
  return {logits, torch::tanh(prio->forward(h)).squeeze(-1)};
}

void make_deterministic(std::uint64_t seed) {
  at::set_num_threads(1);
  torch::manual_seed(seed);
}

} // namespace hs::gnn
