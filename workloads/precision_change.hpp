#pragma once
// A graph read from a file (ONNX, DOT, JSON) at another precision: `model.onnx:precision=fp16`. Each
// floating-point op takes the new precision (the cost model then uses that precision's peak), and its
// bytes read and written, parameters and workspace, and the tensors it produces, scale by the ratio of
// element sizes. Integer ops (int8 inputs, index tensors the importer labels by their own type) keep theirs.
#include "sim/graph.hpp"

#include <string>

namespace hs {

Graph with_precision(Graph g, const std::string& precision);

} // namespace hs
