#include "workloads/resnet.hpp"

#include "workloads/model_options.hpp"

#include <stdexcept>

namespace hs {
namespace {

using layers::LayerGraph;
using layers::ValueId;

struct Activation {
  ValueId value;
  long long channels, height, width;
};

class ResNetBuilder {
public:
  explicit ResNetBuilder(LayerGraph& g) : g_(g), n_(static_cast<double>(g.batch())) {}

  Activation conv_bn(const std::string& name, Activation x, long long out_channels, long long kernel,
                     long long stride, bool relu) {
    const LayerGraph::Conv c{x.channels, x.height, x.width, out_channels, kernel, stride, kernel / 2};
    Activation y{g_.conv2d(name + ".conv", x.value, c), out_channels, c.out_height(), c.out_width()};
    const double elements = n_ * static_cast<double>(out_channels * y.height * y.width);
    y.value = g_.batchnorm(name + ".bn", y.value, elements, static_cast<double>(out_channels));
    if (relu) y.value = g_.elementwise(name + ".relu", {y.value}, elements, 1, layers::Saved::Output);
    return y;
  }

  Activation residual(const std::string& name, Activation branch, Activation shortcut) {
    const double elements = n_ * static_cast<double>(branch.channels * branch.height * branch.width);
    branch.value = g_.add(name + ".add", {branch.value, shortcut.value}, elements);
    branch.value = g_.elementwise(name + ".relu", {branch.value}, elements, 1, layers::Saved::Output);
    return branch;
  }

  Activation basic_block(const std::string& name, Activation x, long long width, long long stride) {
    Activation y = conv_bn(name + ".1", x, width, 3, stride, true);
    y = conv_bn(name + ".2", y, width, 3, 1, false);
    const Activation shortcut =
        (stride != 1 || x.channels != width) ? conv_bn(name + ".down", x, width, 1, stride, false) : x;
    return residual(name, y, shortcut);
  }

  Activation bottleneck(const std::string& name, Activation x, long long width, long long stride) {
    const long long out = width * 4;
    Activation y = conv_bn(name + ".1", x, width, 1, 1, true);
    y = conv_bn(name + ".2", y, width, 3, stride, true);
    y = conv_bn(name + ".3", y, out, 1, 1, false);
    const Activation shortcut =
        (stride != 1 || x.channels != out) ? conv_bn(name + ".down", x, out, 1, stride, false) : x;
    return residual(name, y, shortcut);
  }

private:
  LayerGraph& g_;
  double n_;
};

} // namespace

Graph resnet(const ResNetOptions& o) {
  if (o.depth != 18 && o.depth != 50) throw std::invalid_argument("resnet: depth must be 18 or 50");
  const std::string name = "resnet" + std::to_string(o.depth);
  layers::LayerGraph g(name + "-b" + std::to_string(o.model.batch) + "-" + std::to_string(o.image) + "-" +
                           o.model.precision + (o.model.training ? "-training" : "-inference"),
                       o.model);
  const double n = static_cast<double>(o.model.batch);
  ResNetBuilder r(g);
  Activation x{g.input("image", n * 3 * static_cast<double>(o.image * o.image) * g.elem()), 3, o.image,
               o.image};
  x = r.conv_bn("stem", x, 64, 7, 2, true);
  const long long pooled = (x.height + 2 - 3) / 2 + 1;
  x.value = g.pooling("stem.maxpool", x.value, n * static_cast<double>(64 * x.height * x.width),
                      n * static_cast<double>(64 * pooled * pooled), 9, true);
  x.height = x.width = pooled;
  const int blocks18[] = {2, 2, 2, 2}, blocks50[] = {3, 4, 6, 3};
  const int* blocks = o.depth == 18 ? blocks18 : blocks50;
  for (int stage = 0; stage < 4; ++stage) {
    const long long width = 64LL << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string block = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
      const long long stride = (stage > 0 && b == 0) ? 2 : 1;
      x = o.depth == 18 ? r.basic_block(block, x, width, stride) : r.bottleneck(block, x, width, stride);
    }
  }
  const double features = static_cast<double>(x.channels);
  const ValueId pooled_features =
      g.pooling("avgpool", x.value, n * features * static_cast<double>(x.height * x.width), n * features,
                static_cast<double>(x.height * x.width), false);
  const ValueId logits = g.linear("fc", pooled_features, n, features, static_cast<double>(o.classes));
  if (o.model.training) g.loss("loss", logits, n, static_cast<double>(o.classes));
  return std::move(g).finish();
}

} // namespace hs

namespace {

hs::WorkloadBuilder resnet_builder(int depth) {
  const std::string name = "resnet" + std::to_string(depth);
  return hs::WorkloadBuilder{
      name,
      "ResNet-" + std::to_string(depth) +
          " (He et al. 2016; torchvision layout): conv, batch-norm, ReLU, pooling, residual adds, FC",
      hs::layers::model_parameters({{"image", "224"}, {"classes", "1000"}}),
      [name, depth](hs::WorkloadParams& p) {
        hs::ResNetOptions o;
        o.depth = depth;
        o.model = hs::layers::read_model_options(p, name, 1);
        o.image = p.integer("image", 224, 32, 4096);
        o.classes = p.integer("classes", 1000, 1, 1'000'000);
        return hs::resnet(o);
      }};
}

} // namespace

HS_REGISTER_WORKLOAD(resnet18, resnet_builder(18))
HS_REGISTER_WORKLOAD(resnet50, resnet_builder(50))
