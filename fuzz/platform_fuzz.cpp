// Platform descriptions (JSON): parse, validate, build routes.
#include "fuzz_support.hpp"
#include "sim/platform.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hs::fuzz::expect_named_errors(
      [&] { (void)hs::parse_platform(hs::fuzz::text(data, size), "fuzz.json"); });
}
