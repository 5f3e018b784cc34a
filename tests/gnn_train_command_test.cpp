// `heterosim train-gnn` (cli/train_gnn_command.cpp) as a user runs it: a short training writes a checkpoint
// and its recorded command, the same options give the same bytes, and an existing file is not overwritten
// without --force.
#include "cli_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>

namespace {

std::string gnn_cmd_read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("train-gnn writes a checkpoint with its command, deterministically, and refuses to overwrite") {
  const auto dir = hs::test::scratch_dir("train-gnn", "basic");
  const std::string out = (dir / "t.pt").string();
  const std::string args = "train-gnn --workload random:ops=12 --platform workstation --iterations 3 "
                           "--samples 4 --seed 2 --quiet --out " +
                           out;
  const auto first = hs::test::heterosim(args);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.rfind("iteration,loss,mean_sampled_over_heft,best_over_heft\n0,", 0) == 0);
  CHECK(std::count(first.output.begin(), first.output.end(), '\n') == 4); // the header and 3 iterations
  CHECK(gnn_cmd_read(out + ".command") ==
        "heterosim train-gnn --workload random:ops=12 --platform workstation --iterations 3 --samples 4 "
        "--hidden 32 --layers 3 --lr 0.01 --seed 2 --out " +
            out + "\n");
  const std::string bytes = gnn_cmd_read(out);
  CHECK(bytes.size() > 1000);

  const auto again = hs::test::heterosim(args);
  CHECK(again.exit_code != 0);
  CHECK(again.output.find(out + ": already exists; pass --force") != std::string::npos);
  CHECK(hs::test::heterosim(args + " --force").exit_code == 0);
  CHECK(gnn_cmd_read(out) == bytes);

  const auto bad =
      hs::test::heterosim("train-gnn --workload random:ops=12 --platform workstation --samples 1 "
                          "--out " +
                          (dir / "u.pt").string());
  CHECK(bad.exit_code != 0);
  CHECK(bad.output.find("--samples") != std::string::npos);
}
