// heterosim sweep through the CLI: grid order, workload parameters, platform variants, a point's figures
// equal to the same `heterosim run`, resuming, and every bad-input error naming the file and the place.
#include "cli_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;
using hs::test::heterosim;

namespace {

fs::path write_sweep(const fs::path& dir, const std::string& body) {
  const fs::path file = dir / "sweep.json";
  std::ofstream(file) << R"({"format": "heterosim-sweep", "version": 1, )" << body << "}";
  return file;
}

std::vector<std::vector<std::string>> read_csv(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');)
      cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kBase = R"("base": {"platform": "hetero-server", "workload": "random:ops=40,precision=fp16"}, )";

} // namespace

TEST_CASE("sweep: the first axis varies slowest, workload parameters change the builder spec") {
  const auto dir = hs::test::scratch_dir("sweep", "grid");
  const auto file = write_sweep(dir, std::string(kBase) + R"("axes": [
      {"name": "ops", "workload_parameter": "ops", "values": [20, 30]},
      {"name": "policy", "values": ["heft", "fastest-device", "peft"]}],
      "metrics": ["latency_s", "/ops"], "baseline": {"axis": "policy", "value": "fastest-device"},
      "plots": [{"x": "ops", "y": "latency_s", "series": "policy"},
                {"x": "ops", "y": "latency_s", "where": {"policy": "peft"}}])");
  const auto r = heterosim("sweep " + file.string() + " --out " + (dir / "out").string() + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const auto rows = read_csv(dir / "out/sweep.csv");
  REQUIRE(rows.size() == 7);
  CHECK(rows[0] == std::vector<std::string>{"point", "ops", "policy", "outcome", "latency_s", "/ops",
                                            "latency_s_ratio", "/ops_ratio"});
  const char* policies[] = {"heft", "fastest-device", "peft"};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(rows[i + 1][0] == std::to_string(i));
    CHECK(rows[i + 1][1] == (i < 3 ? "20" : "30"));
    CHECK(rows[i + 1][2] == policies[i % 3]);
    CHECK(rows[i + 1][3] == "ok");
    CHECK(rows[i + 1][5] == (i < 3 ? "20" : "30")); // the graph really has that many ops
    // Ratios to the fastest-device point of the same ops: 1 there, value over its value elsewhere.
    const double base = std::stod(rows[i - i % 3 + 2][4]);
    CHECK(std::stod(rows[i + 1][6]) == doctest::Approx(std::stod(rows[i + 1][4]) / base).epsilon(1e-8));
    CHECK(rows[i + 1][7] == "1");
  }
  CHECK(rows[2][6] == "1");
  CHECK(slurp(dir / "out/points/p0004/command.txt").find("random:ops=30,precision=fp16") !=
        std::string::npos);
}

TEST_CASE("sweep: a point's figures are those of the same heterosim run") {
  const auto dir = hs::test::scratch_dir("sweep", "same-run");
  const auto file = write_sweep(dir, std::string(kBase) + R"("axes": [
      {"name": "gpu_link", "path": "/links/pcie_gpu/bandwidth", "values": ["4GBps"]},
      {"name": "seed", "values": [3]}], "metrics": ["latency_s", "energy_j"])");
  REQUIRE(heterosim("sweep " + file.string() + " --out " + (dir / "out").string() + " --quiet").exit_code ==
          0);
  // The same run by hand: the preset with that one field changed.
  auto platform = nlohmann::json::parse(slurp(HS_SOURCE_DIR "/platforms/hetero-server.json"));
  for (auto& l : platform["links"])
    if (l["name"] == "pcie_gpu") l["bandwidth"] = "4GBps";
  std::ofstream(dir / "by-hand.json") << platform.dump();
  const auto run = heterosim("run --platform " + (dir / "by-hand.json").string() +
                             " --workload random:ops=40,precision=fp16 --seed 3 --report-only -q --out " +
                             (dir / "run").string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  const auto report = nlohmann::json::parse(slurp(dir / "run/report.json"));
  const auto rows = read_csv(dir / "out/sweep.csv");
  char expected[40];
  std::snprintf(expected, sizeof expected, "%.10g", report["makespan_s"].get<double>());
  CHECK(rows[1][4] == expected);
  std::snprintf(expected, sizeof expected, "%.10g", report["energy"]["total_j"].get<double>());
  CHECK(rows[1][5] == expected);
}

TEST_CASE("sweep: variants add a device like an existing one and remove one with its routes") {
  const auto dir = hs::test::scratch_dir("sweep", "variants");
  const auto file = write_sweep(dir, std::string(kBase) + R"("axes": [{"name": "variant", "variants": [
      {"label": "as is"},
      {"label": "no fpga", "remove": {"devices": ["fpga0"]}},
      {"label": "slow npu", "set": {"/devices/npu0/memory/bandwidth": "10GBps"}}]}],
      "metrics": ["latency_s", "/devices/fpga0/ops"])");
  const auto r = heterosim("sweep " + file.string() + " --out " + (dir / "out").string() + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const auto rows = read_csv(dir / "out/sweep.csv");
  REQUIRE(rows.size() == 4);
  CHECK(rows[1][4] != "");
  CHECK(rows[2][1] == "no fpga");
  CHECK(rows[2][4] == ""); // no fpga0 in that point's report: an empty cell, not a zero
  const auto patched = nlohmann::json::parse(slurp(dir / "out/points/p0001/platform.json"));
  for (const auto& d : patched["devices"])
    CHECK(d["name"] != "fpga0");
  CHECK(patched.dump().find("fpga0") == std::string::npos); // its routes went with it
  // A point's command.txt runs it again as written, to the same report.
  const std::string before = slurp(dir / "out/points/p0001/report.json");
  CHECK(std::system(("sh " + (dir / "out/points/p0001/command.txt").string()).c_str()) == 0);
  CHECK(slurp(dir / "out/points/p0001/report.json") == before);
}

TEST_CASE("sweep: resumes the same sweep and refuses another in the same directory") {
  const auto dir = hs::test::scratch_dir("sweep", "resume");
  const auto file =
      write_sweep(dir, std::string(kBase) + R"("axes": [{"name": "policy", "values": ["heft", "greedy"]}])");
  const std::string out = (dir / "out").string();
  REQUIRE(heterosim("sweep " + file.string() + " --out " + out + " --quiet").exit_code == 0);
  const std::string table = slurp(dir / "out/sweep.csv");
  fs::remove_all(dir / "out/points/p0001");
  const auto again = heterosim("sweep " + file.string() + " --out " + out);
  CHECK(again.output.find("1 finished before; running 1") != std::string::npos);
  CHECK(slurp(dir / "out/sweep.csv") == table);
  fs::create_directories(dir / "other");
  const auto other =
      write_sweep(dir / "other", std::string(kBase) + R"("axes": [{"name": "policy", "values": ["peft"]}])");
  const auto refused = heterosim("sweep " + other.string() + " --out " + out);
  CHECK(refused.exit_code == 1);
  CHECK(refused.output.find("holds another sweep") != std::string::npos);
  CHECK(heterosim("sweep " + other.string() + " --out " + out + " --force --quiet").exit_code == 0);
  CHECK(read_csv(dir / "out/sweep.csv").size() == 2);
}

TEST_CASE("sweep: bad sweep files are refused, naming the file and the place") {
  const auto dir = hs::test::scratch_dir("sweep", "bad");
  const struct {
    std::string body, message;
  } cases[] = {
      {R"("axes": [{"name": "bw", "path": "/links/pcie_gpuu/bandwidth", "values": ["1GBps"]}])",
       "axes[0].path: platform path '/links/pcie_gpuu/bandwidth': no 'pcie_gpuu' in /links (did you mean "
       "'pcie_gpu'?)"},
      {R"("axes": [{"name": "bw", "path": "/links/pcie_gpu/bandwith", "values": ["1GBps"]}])",
       "has no field 'bandwith' (did you mean 'bandwidth'?)"},
      {R"("axes": [{"name": "bw", "path": "/links/pcie_gpu/bandwidth", "values": ["16"]}])",
       "axes[0].values[0]: needs a unit: it replaces \"31.5GBps\", a bandwidth"},
      {R"("axes": [{"name": "bw", "path": "/links/pcie_gpu/bandwidth", "values": [16e9]}])",
       "axes[0].values[0]: must be a string like the value it replaces (\"31.5GBps\"): a quantity needs its "
       "unit"},
      {R"("axes": [{"name": "policy", "values": []}])", "axes[0]: axis 'policy' has no values"},
      {R"("axes": [{"name": "policy", "values": ["heft", "heft"]}])",
       "axes[0].values[1]: value 'heft' appears twice"},
      {R"("axes": [{"name": "speed", "values": [1]}])", "axes[0].name: axis 'speed' needs \"path\""},
      {R"("axes": [{"name": "v", "variants": [{"label": "x", "remove": {"devices": ["npu"]}}]}])",
       "axes[0].variants[0].remove.devices[0]: no devices entry 'npu' to remove (did you mean 'npu0'?)"},
      {R"("axes": [{"name": "policy", "values": ["heft"]}], "metrics": ["latency"])",
       "metrics[0]: unknown metric 'latency' (did you mean 'latency_s'?)"},
      {R"("axes": [{"name": "policy", "values": ["heft"]}], "plots": [{"x": "policy", "y": "latency_s"}])",
       "plots[0].x: axis 'policy' is not numeric"},
      {R"("axes": [{"name": "policy", "values": ["heft"]}, {"name": "seed", "values": [1, 2]}],
          "plots": [{"x": "seed", "y": "latency_s", "where": {"policy": "hefft"}}])",
       "plots[0].where.policy: 'hefft' is not a value of axis 'policy' (did you mean 'heft'?)"},
      {R"("axes": [{"name": "policy", "values": ["heft"]}], "baseline": {"axis": "policy", "value": "fastest"})",
       "baseline.value: 'fastest' is not a value of axis 'policy'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    const auto file = write_sweep(dir, std::string(kBase) + c.body);
    const auto r = heterosim("sweep " + file.string() + " --out " + (dir / "out").string());
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find(file.string() + ": ") != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find(c.message) != std::string::npos, r.output);
    CHECK(!fs::exists(dir / "out")); // refused before anything is written
  }
}
