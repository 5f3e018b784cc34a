// Graphviz DOT graphs (SimGrid's DAG conventions).
#include "fuzz_support.hpp"
#include "workloads/dot_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hs::fuzz::expect_named_errors([&] { (void)hs::parse_dot(hs::fuzz::text(data, size), "fuzz.dot"); });
}
