// torch.profiler Chrome traces, as `calibrate --trace` reads them: the model thread's top-level ops, GPU
// activity joined to its launches, the ops' times and the host's issue time.
#include "fuzz_support.hpp"
#include "validation/op_times.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hs::fuzz::expect_named_errors([&] {
    const hs::validation::OpTimes times =
        hs::validation::op_times_from_trace(hs::fuzz::as_file(data, size, ".json"));
    (void)times;
  });
}
