#pragma once
// ONNX models as workloads; see onnx_import.cpp. Built when libonnx-dev and libprotobuf-dev are present.
#include "sim/graph.hpp"

#include <string>

namespace hs {

Graph load_onnx(const std::string& path);

} // namespace hs
