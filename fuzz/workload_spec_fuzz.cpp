// Workload specs on the command line ("random:ops=1000,alpha=1.5"). Specs with a number above 32 are
// skipped: they are valid, only slow (a number multiplies with the layers: gpt2-small:decode=460 is 100k
// ops), and would make the run measure graph building instead of the spec's checks.
#include "fuzz_support.hpp"
#include "workloads/workload_registry.hpp"

#include <cctype>
#include <cstdlib>

namespace {
constexpr long kLargestNumber = 32;

bool asks_for_a_large_graph(const std::string& spec) {
  for (std::size_t i = 0; i < spec.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(spec[i])) &&
        (i == 0 || !std::isdigit(static_cast<unsigned char>(spec[i - 1])))) {
      std::size_t j = i;
      while (j < spec.size() && std::isdigit(static_cast<unsigned char>(spec[j])))
        ++j;
      if (j - i > 4 || std::strtol(spec.substr(i, j - i).c_str(), nullptr, 10) > kLargestNumber) return true;
      if (j < spec.size() && (spec[j] == 'e' || spec[j] == 'E')) return true;
    }
  return false;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec = hs::fuzz::text(data, size);
  if (spec.find('/') != std::string::npos || asks_for_a_large_graph(spec)) return 0; // no files, no giants
  return hs::fuzz::expect_named_errors([&] { (void)hs::load_workload(spec, 1); });
}
