// `heterosim strategies`: every layout of a training step over N GPUs, ranked by samples/s.
#include "cli_support.hpp"

#include <fstream>
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

TEST_CASE("strategies ranks the feasible layouts by samples/s, replays the best, and says why others cannot run") {
  const auto dir = hs::test::scratch_dir("strategies", "gpt2");
  const auto r = hs::test::heterosim("strategies --workload gpt2-small:mode=training,heads=fused,batch=2,seq=64 "
                                     "--gpus 8 --microbatches 4 --top 2 --out " + dir.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(dir / "strategies.csv");
  // dp=8; tp or pp over 2, 4 and 8 with dp making up the rest.
  REQUIRE(rows.size() == 7);
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
