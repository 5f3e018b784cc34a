// "Did you mean": the nearest known name within a third of the name's letters, and only a unique one.
#include "sim/json_input.hpp"
#include "sim/nearest_name.hpp"

#include <doctest/doctest.h>

TEST_CASE("did_you_mean names the unique nearest known name, case-insensitively, and nothing far") {
  const std::vector<std::string> policies = {"heft", "peft", "greedy", "fastest-device", "memory-aware"};
  CHECK(hs::did_you_mean("hetf", policies) == " (did you mean 'heft'?)"); // a swap is one edit
  CHECK(hs::did_you_mean("heftt", policies) == " (did you mean 'heft'?)");
  CHECK(hs::did_you_mean("greedyy", policies) == " (did you mean 'greedy'?)");
  CHECK(hs::did_you_mean("HEFT", policies) == " (did you mean 'heft'?)");
  CHECK(hs::did_you_mean("fastest-devcie", policies) == " (did you mean 'fastest-device'?)");
  CHECK(hs::did_you_mean("xeft", policies).empty()); // one edit from heft and from peft: no guess
  CHECK(hs::did_you_mean("quantum", policies).empty());
  CHECK(hs::did_you_mean("heft", policies).empty()); // known: nothing to suggest
  CHECK(hs::did_you_mean("", policies).empty());
  CHECK(hs::name_list({"a", "b", "c"}) == "a, b, c");
}

TEST_CASE("a name with a directory or a file extension is meant as a file") {
  CHECK(hs::looks_like_a_path("graph.json"));
  CHECK(hs::looks_like_a_path("./x"));
  CHECK(hs::looks_like_a_path("models/resnet.onnx"));
  CHECK_FALSE(hs::looks_like_a_path("hetero-server"));
  CHECK_FALSE(hs::looks_like_a_path("random:ops=2000,alpha=1.5"));
  CHECK_FALSE(hs::looks_like_a_path("gpt2-small:precision=fp16"));
  CHECK_FALSE(hs::looks_like_a_path("v1.5"));
  CHECK_FALSE(hs::looks_like_a_path(".hidden"));
}
