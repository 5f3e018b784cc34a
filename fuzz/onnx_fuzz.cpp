// ONNX models (protobuf bytes), through the importer: parsing, shape inference and the mapping to ops.
#include "fuzz_support.hpp"
#include "workloads/onnx_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hs::fuzz::expect_named_errors([&] { (void)hs::load_onnx(hs::fuzz::as_file(data, size, ".onnx")); });
}
