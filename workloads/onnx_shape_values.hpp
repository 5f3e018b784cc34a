#pragma once
// Shapes a model computes itself. Exporters build some shapes inside the graph: torch's `expand(n, -1, -1)`
// becomes Shape -> Gather -> Unsqueeze -> Concat -> Equal -> Where -> Expand, which ONNX's shape inference
// (data propagation included, libonnx 1.12) cannot follow through Equal and Where. This pass evaluates such
// small integer subgraphs from the shapes already known and records the output shape of each Expand, Slice
// and Reshape whose shape arguments they give, so inference can go on downstream (torchvision's ViT-B/16
// imports this way).
#include <onnx/onnx_pb.h>

namespace hs::onnx_import {

// Adds a value_info entry for every Expand, Slice or Reshape output whose shape is unknown and can now be
// computed; returns how many it added (0: nothing more to learn).
int add_computed_shapes(onnx::GraphProto& g);

} // namespace hs::onnx_import
