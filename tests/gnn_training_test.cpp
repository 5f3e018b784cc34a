// Training the placement network (gnn/train.hpp): it learns, and it is deterministic for a seed.
#include "gnn/train.hpp"

#include <doctest/doctest.h>

namespace {

hs::gnn::TrainOptions gnn_tiny_options() {
  hs::gnn::TrainOptions o;
  o.workloads = {"random:ops=12", "random:ops=16,seed=9"};
  o.platforms = {"workstation", "hetero-server"};
  o.iterations = 30;
  o.samples = 8;
  o.hidden = 16;
  o.layers = 2;
  o.seed = 4;
  return o;
}

} // namespace

TEST_CASE("gnn training: a few steps on a tiny graph set lower the training loss") {
  hs::gnn::PlacementNet net{nullptr};
  const auto history = hs::gnn::train(gnn_tiny_options(), net);
  REQUIRE(history.size() == 30);
  MESSAGE("loss " << history.front().loss << " -> " << history.back().loss);
  CHECK(history.back().loss < 0.85 * history.front().loss);
  // The best plan kept per instance starts at HEFT's and never gets worse.
  CHECK(history.back().best_ratio <= 1.0 + 1e-12);
}

TEST_CASE("gnn training is deterministic for a seed") {
  hs::gnn::PlacementNet a{nullptr}, b{nullptr};
  auto o = gnn_tiny_options();
  o.iterations = 3;
  const auto ha = hs::gnn::train(o, a);
  const auto hb = hs::gnn::train(o, b);
  for (std::size_t i = 0; i < ha.size(); ++i) {
    CHECK(ha[i].loss == hb[i].loss);
    CHECK(ha[i].mean_ratio == hb[i].mean_ratio);
  }
}
