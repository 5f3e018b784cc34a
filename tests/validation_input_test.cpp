// Malformed measurement and execution files are refused with the file and the place in it.
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "validation/cpu_validation.hpp"
#include "validation/csv_table.hpp"
#include "validation/measurement_set.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <unistd.h>

using namespace hs;
using namespace hs::validation;

namespace {

std::string write_temp(const std::string& stem, const std::string& text) {
  std::string name = stem;
  name += std::to_string(::getpid());
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  write_file_atomically(path, text, true);
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kPoint =
    R"({"kind": "gemm", "label": "g", "flops": 2e6, "bytes": 1e4, "repeats": 5, "p50_s": 1e-4, "p95_s": 2e-4})";

} // namespace

TEST_CASE("a measurement set round-trips through its JSON form") {
  MeasurementSet m;
  m.device = "cpu-thread";
  m.device_kind = "cpu";
  m.environment = {{"cpu_model", "test"}};
  m.peaks = {{"fp32_flops", 1e11}, {"memory_bandwidth", 1e10}};
  m.points.push_back({"gemm", "gemm m=1", {{"m", 1}}, 2.0, 12.0, 5, 2, 1e-6, 2e-6});
  const std::string path = write_temp("hs-ms-", measurement_set_json(m));
  const MeasurementSet back = load_measurement_set(path);
  std::filesystem::remove(path);
  REQUIRE(back.points.size() == 1);
  CHECK(back.points[0].co_running == 2);
  CHECK(back.points[0].p95 == 2e-6);
  CHECK(back.peaks.at("fp32_flops") == 1e11);
}

TEST_CASE("bad measurement files name the place of the problem") {
  const auto check = [](const std::string& body, const std::string& expected) {
    const std::string path = write_temp("hs-bad-ms-", body);
    const std::string e = error_of([&] { load_measurement_set(path); });
    std::filesystem::remove(path);
    CHECK_MESSAGE(e.find(expected) != std::string::npos, e);
  };
  const std::string head =
      R"({"format": "heterosim-measurements", "version": 1, "device": "d", "device_kind": "cpu", )";
  check(head + R"("points": []})", "points: holds no measurement");
  check(head +
            R"("points": [{"kind": "gemm", "flops": 1, "bytes": 1, "repeats": 5, "p50_s": -1, "p95_s": 1}]})",
        "points[0].p50_s");
  check(head +
            R"("points": [{"kind": "gemm", "flops": 1, "bytes": 1, "repeats": 5, "p50_s": 2, "p95_s": 1}]})",
        "points[0].p95_s");
  check(head + R"("points": [)" + kPoint + R"(], "peaks": {"fp32_flops": 0}})", "peaks.fp32_flops");
  check(R"({"format": "heterosim-platform", "version": 1})", "format");
  check(head + R"("points": [{"kind": "gemm", "flop": 1}]})", "points[0]");
}

TEST_CASE("a bad execution record names the place of the problem") {
  const std::string path =
      write_temp("hs-bad-ex-", R"({"format": "heterosim-executions", "version": 1, "executions": [
      {"graph": {"ops": 3, "seed": 1}, "threads": 2, "policy": "heft", "queues": [[0, 1, 7], []], "repeats": 5,
       "p50_s": 0.1, "p95_s": 0.2}]})");
  const std::string e = error_of([&] { load_execution_set(path); });
  std::filesystem::remove(path);
  CHECK_MESSAGE(e.find("executions[0].queues[0][2]") != std::string::npos, e);
}

TEST_CASE("a CSV row with a missing field or a non-number names its line and column") {
  const std::string short_row = write_temp("hs-bad-csv-", "gpu,fp32_tflops\nV100\n");
  CHECK(error_of([&] { CsvTable::read(short_row); }).find("line 2") != std::string::npos);
  const std::string text_cell = write_temp("hs-bad-csv2-", "gpu,fp32_tflops\nV100,fast\n");
  const CsvTable t = CsvTable::read(text_cell);
  CHECK(error_of([&] { t.number(0, "fp32_tflops"); }).find("line 2, column fp32_tflops") !=
        std::string::npos);
  std::filesystem::remove(short_row);
  std::filesystem::remove(text_cell);
}

TEST_CASE("execution sets: version 1 holds each op's last run, version 2 their P50, and later versions are "
          "refused") {
  const auto set = [](int version, const char* field) {
    return std::string(R"({"format": "heterosim-executions", "version": )") + std::to_string(version) +
           R"(, "executions": [{"graph": {"ops": 2, "seed": 1}, "threads": 1, "policy": "heft",
       "queues": [[0, 1]], "repeats": 5, "p50_s": 0.1, "p95_s": 0.2, ")" +
           field + R"(": [0.03, 0.05]}]})";
  };
  for (const auto& [version, field] : {std::pair{1, "op_seconds_last_run"}, std::pair{2, "op_seconds_p50"}}) {
    const std::string path = write_temp("hs-ex-version-", set(version, field));
    const ExecutionSet s = load_execution_set(path);
    std::filesystem::remove(path);
    REQUIRE(s.records.size() == 1);
    CHECK(s.records[0].op_seconds == std::vector<double>{0.03, 0.05});
  }
  // A version-2 file with version 1's field name is a mistake, not a silent empty list.
  const std::string mixed = write_temp("hs-ex-mixed-", set(2, "op_seconds_last_run"));
  CHECK(error_of([&] { load_execution_set(mixed); }).find("unknown field 'op_seconds_last_run'") !=
        std::string::npos);
  std::filesystem::remove(mixed);
  const std::string later = write_temp("hs-ex-later-", set(3, "op_seconds_p50"));
  CHECK(error_of([&] { load_execution_set(later); }).find("version") != std::string::npos);
  std::filesystem::remove(later);
}
