#pragma once
// What every fuzz target shares. A target feeds the fuzzer's bytes to one parser: an InputError or a
// PlanError (bad input, named) is the expected answer; anything else that escapes (another exception, a
// crash, a sanitizer report) is a defect the fuzzer reports.
#include "sim/error.hpp"
#include "sim/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

namespace hs::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// For parsers that read files: the bytes in a file of this process's own, with `extension`.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& extension) {
  const std::string path = "/tmp/heterosim-fuzz-" + std::to_string(::getpid()) + extension;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

template <class F> int expect_named_errors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const PlanError&) {
  }
  return 0;
}

} // namespace hs::fuzz
