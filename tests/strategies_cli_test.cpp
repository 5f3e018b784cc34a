// `heterosim strategies`: every layout of a training step over N GPUs, ranked by samples/s.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace {

std::vector<std::vector<std::string>> csv_rows(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += ch;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

} // namespace

TEST_CASE(
    "strategies ranks the feasible layouts by samples/s, replays the best, and says why others cannot run") {
  const auto dir = hs::test::scratch_dir("strategies", "gpt2");
  const auto r =
      hs::test::heterosim("strategies --workload gpt2-small:mode=training,heads=fused,batch=2,seq=64 "
                          "--gpus 8 --microbatches 4 --top 2 --out " +
                          dir.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(dir / "strategies.csv");
  // Every dp x tp x pp of 8: dp=8; tp or pp over 2, 4 and 8 with dp making up the rest; tp x pp over 4
  // (with dp=2) and over 8 (2 x 4, 4 x 2).
  REQUIRE(rows.size() == 10);
  double previous = 1e300;
  bool refused_seen = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool refused = !rows[i][5].empty();
    if (refused) {
      refused_seen = true;
      continue;
    }
    CHECK_FALSE(refused_seen); // runnable layouts come first
    const double samples = std::stod(rows[i][2]);
    CHECK(samples <= previous);
    previous = samples;
    // The best two are replayed, and the replay agrees with the evaluator that ranked them.
    if (i < 2) CHECK(std::stod(rows[i][3]) == doctest::Approx(std::stod(rows[i][1])).epsilon(0.05));
  }
  // GPT-2 small has 12 heads: tp=8 cannot split them.
  bool tp8 = false;
  for (const auto& row : rows)
    if (row[0] == "tp=8") {
      tp8 = true;
      CHECK(row[5].find("does not divide") != std::string::npos);
    }
  CHECK(tp8);
  CHECK(hs::test::heterosim("strategies --workload gpt2-small:mode=training --gpus 8 --out " + dir.string())
            .output.find("already exists") != std::string::npos);
}

TEST_CASE("strategies refuses a layout over memory capacity, naming the device and the figures") {
  const auto dir = hs::test::scratch_dir("strategies", "small-gpus");
  std::ifstream in(hs::test::source_dir() + "/platforms/multi-gpu-node.json");
  std::string platform((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto at = platform.find("\"80GiB\""); at != std::string::npos; at = platform.find("\"80GiB\""))
    platform.replace(at, 7, "\"1.5GiB\""); // the A100s with 1.5 GiB each
  const auto file = hs::test::write_file(dir / "small.json", platform);
  const auto r =
      hs::test::heterosim("strategies --platform " + file.string() +
                          " --workload gpt2-small:mode=training,heads=fused,batch=2,seq=64 --gpus 8 "
                          "--microbatches 4 --top 1 --out " +
                          dir.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(dir / "strategies.csv");
  REQUIRE(rows.size() == 10);
  std::map<std::string, std::string> refused;
  for (const auto& row : rows)
    refused[row[0]] = row[5];
  // dp=8 keeps a whole replica per GPU (2.13 GB at its peak); splitting it 2 or 4 ways fits.
  CHECK(refused["dp=8"].find("memory: gpu") != std::string::npos);
  CHECK(refused["dp=8"].find("exceeds its capacity of 1.611 GB") != std::string::npos);
  CHECK(refused["dp=4,tp=2"].empty());
  CHECK(refused["dp=2,tp=4"].empty());
  CHECK(refused.at(rows.front()[0]).empty()); // the best is one that fits
}

TEST_CASE("strategies tries interleaved pipelines where the micro-batches allow them") {
  const auto dir = hs::test::scratch_dir("strategies", "interleave");
  const auto r =
      hs::test::heterosim("strategies --workload gpt2-small:mode=training,heads=fused,batch=1,seq=32 "
                          "--gpus 8 --microbatches 4 --interleave 1,2 --top 1 --out " +
                          dir.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(dir / "strategies.csv");
  // The 10 layouts, and 2 chunks per device for the five pipelines of 2 or 4 stages (4 micro-batches are
  // not a multiple of 8 stages).
  REQUIRE(rows.size() == 15);
  int interleaved = 0;
  for (const auto& row : rows)
    if (row[0].find("interleave=2") != std::string::npos) {
      ++interleaved;
      CHECK(row[0].find("pp=8") == std::string::npos);
      CHECK(row[5].empty());
    }
  CHECK(interleaved == 5);
}

TEST_CASE("strategies at a global batch: every layout runs G / (dp x batch) micro-batches, or is refused") {
  const auto dir = hs::test::scratch_dir("strategies", "global-batch");
  const auto r =
      hs::test::heterosim("strategies --workload gpt2-small:mode=training,heads=fused,batch=2,seq=32 "
                          "--gpus 8 --global-batch 8 --top 1 --out " +
                          dir.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(dir / "strategies.csv");
  REQUIRE(rows.size() == 10); // the 10 meshes of 8 GPUs, none interleaved
  int refused = 0;
  for (const auto& row : rows) {
    const auto degree = [&](const std::string& key) {
      const auto at = row[0].find(key + "=");
      return at == std::string::npos ? 1 : std::stoi(row[0].substr(at + key.size() + 1));
    };
    CAPTURE(row[0]);
    if (degree("dp") == 8) { // 8 replicas of 2 samples are 16 a step, not 8
      CHECK(row[5] == "global batch 8 is not a multiple of dp x batch = 16");
      ++refused;
      continue;
    }
    if (degree("tp") == 8) { // GPT-2 small's 12 heads do not split 8 ways
      CHECK(row[5].find("does not divide") != std::string::npos);
      continue;
    }
    CHECK(row[5].empty());
    CHECK(degree("microbatches") * degree("dp") * 2 == 8); // every layout steps over the same 8 samples
    // samples/s is those 8 samples over the step the evaluator gives
    CHECK(std::stod(row[2]) == doctest::Approx(8 / std::stod(row[1])).epsilon(1e-6));
  }
  CHECK(refused == 1);
  CHECK(
      hs::test::heterosim("strategies --workload gpt2-small:mode=training --global-batch 8 --microbatches 4")
          .output.find("excludes") != std::string::npos);
}

TEST_CASE("strategies tries each ZeRO stage asked for where data parallelism allows it") {
  const auto dir = hs::test::scratch_dir("strategies", "zero");
  const auto r =
      hs::test::heterosim("strategies --workload gpt2-small:mode=training,heads=fused,batch=1,seq=32 "
                          "--gpus 4 --microbatches 4 --zero 0,1,3 --top 1 --out " +
                          dir.string());
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::string> refused;
  for (const auto& row : csv_rows(dir / "strategies.csv"))
    refused[row[0]] = row[5];
  // dp=4 and dp=2,tp=2 at stages 0, 1 and 3; dp=2,pp=2 at 0 and 1 only (run refuses ZeRO-3 with a
  // pipeline); the layouts without data parallelism once.
  for (const char* spec :
       {"dp=4", "dp=4,zero=1", "dp=4,zero=3", "dp=2,tp=2", "dp=2,tp=2,zero=1", "dp=2,tp=2,zero=3",
        "dp=2,pp=2,microbatches=4", "dp=2,pp=2,microbatches=4,zero=1"}) {
    CAPTURE(spec);
    CHECK(refused.count(spec) == 1);
  }
  CHECK(refused.count("dp=2,pp=2,microbatches=4,zero=3") == 0);
  for (const auto& [spec, why] : refused)
    CHECK((spec.find("zero=") == std::string::npos || spec.find("dp=") != std::string::npos));
  CHECK(refused.size() == 8 + 3); // and tp=4, tp=2,pp=2, pp=4 (4 micro-batches), and nothing else
}

TEST_CASE(
    "strategies --replicas: a folded layout scores as the whole run, a ring that cannot fold is refused") {
  const auto whole = hs::test::scratch_dir("strategies", "replicas-whole");
  const auto folded = hs::test::scratch_dir("strategies", "replicas-folded");
  const std::string args = "strategies --platform dgx-a100-cluster:nodes=4 --workload "
                           "gpt2-small:mode=training,heads=fused,batch=2,seq=32 --gpus 32 --global-batch 128 "
                           "--top 1 --out ";
  REQUIRE(hs::test::heterosim(args + whole.string()).exit_code == 0);
  REQUIRE(hs::test::heterosim(args + folded.string() + " --replicas 2").exit_code == 0);
  std::map<std::string, std::vector<std::string>> by_layout;
  for (const auto& row : csv_rows(whole / "strategies.csv"))
    by_layout[row[0]] = row;
  int compared = 0, refused = 0;
  for (const auto& row : csv_rows(folded / "strategies.csv")) {
    const auto at = row[0].find(",replicas=2");
    if (at == std::string::npos) continue; // 2 replicas or fewer: built whole
    CAPTURE(row[0]);
    const auto& same = by_layout.at(row[0].substr(0, at) + row[0].substr(at + 11));
    if (row[5].find("hops are alike") != std::string::npos) { // rings within and across nodes
      ++refused;
      continue;
    }
    if (!row[5].empty()) continue; // refused whole too (tp not dividing the heads)
    CHECK(same[5].empty());
    CHECK(std::stod(row[1]) == doctest::Approx(std::stod(same[1])).epsilon(1e-6)); // the whole run's step
    ++compared;
  }
  CHECK(compared >= 2); // dp=4 layouts: a replica per node, each rank's ring on its rail
  CHECK(refused >= 2);
}
