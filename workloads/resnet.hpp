#pragma once
// ResNet-18 and ResNet-50 (He et al., CVPR 2016, Table 1) in torchvision's form ("v1.5": the stride of a
// bottleneck sits on its 3x3 convolution), so FLOPs and parameters match torchvision's published figures.
#include "sim/graph.hpp"
#include "workloads/layers.hpp"

namespace hs {

struct ResNetOptions {
  int depth = 50; // 18 or 50
  long long image = 224;
  long long classes = 1000;
  layers::ModelOptions model;
};

Graph resnet(const ResNetOptions& o);

} // namespace hs
