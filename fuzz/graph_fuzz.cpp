// Graph files (JSON), then the cost model on a preset: every accepted graph must be costable.
#include "fuzz_support.hpp"
#include "sim/cost_model.hpp"
#include "sim/graph_io.hpp"
#include "sim/json_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hs::Platform platform = hs::load_platform("hetero-server");
  return hs::fuzz::expect_named_errors([&] {
    const hs::Graph g =
        hs::parse_graph(hs::parse_json_text(hs::fuzz::text(data, size), "fuzz.json"), "fuzz.json");
    const hs::CostModel cost(g, platform);
    (void)cost;
  });
}
