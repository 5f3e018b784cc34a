// `run --set PATH=VALUE` (cli/platform_sets.hpp): a platform field changed for one run by a sweep axis's
// path. A known answer: the run with the preset's own value set is the run without --set, to the byte of
// its report but the platform's label; a host that issues slower than the GPU runs holds the run up.
#include "cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using hs::test::heterosim;

namespace {

const std::string kRun = "run --platform h100-sxm-server --workload bert-base:batch=1,heads=fused "
                         "--policy fastest-device --report-only -q --out ";

nlohmann::json report(const std::filesystem::path& dir) {
  return nlohmann::json::parse(hs::test::slurp(dir / "report.json"));
}

} // namespace

TEST_CASE("run --set changes a platform field for one run and says so in the report") {
  const auto dir = hs::test::scratch_dir("run_set", "issue");
  REQUIRE(heterosim(kRun + (dir / "plain").string()).exit_code == 0);
  REQUIRE(heterosim(kRun + (dir / "zero").string() + " --set /devices/gpu0/issue_overhead=0s").exit_code ==
          0);
  REQUIRE(heterosim(kRun + (dir / "slow").string() + " --set /devices/gpu0/issue_overhead=200us").exit_code ==
          0);
  auto plain = report(dir / "plain"), zero = report(dir / "zero"), slow = report(dir / "slow");
  CHECK(zero["platform"] == "h100-sxm-server with --set /devices/gpu0/issue_overhead=0s");
  zero["platform"] = plain["platform"];
  CHECK(zero == plain); // the preset's own value: the same run
  // 200 us an op is far beyond bert-base's kernels on an H100: the run is the host's issues, one per op
  // that does work, and the report says the host held the GPU up.
  const double latency = slow["makespan_s"].get<double>();
  CHECK(latency > plain["makespan_s"].get<double>() * 2);
  CHECK(slow["devices"]["gpu0"]["host_issue"]["issue_overhead_s"].get<double>() == doctest::Approx(200e-6));
  CHECK(slow["devices"]["gpu0"]["host_issue"]["ops_waited"].get<int>() > 0);
}

TEST_CASE("run --set refuses a malformed setting, an unknown field, a unitless quantity and a cluster") {
  const auto dir = hs::test::scratch_dir("run_set", "bad");
  const auto fails_with = [&](const std::string& args, const std::string& what) {
    const auto r = heterosim(args);
    CHECK(r.exit_code != 0);
    CHECK_MESSAGE(r.output.find(what) != std::string::npos, r.output);
  };
  const std::string out = (dir / "o").string();
  fails_with(kRun + out + " --set issue_overhead", "expected PATH=VALUE");
  fails_with(kRun + out + " --set /devices/gpu0/issue_overhed=15us", "did you mean 'issue_overhead'");
  fails_with(kRun + out + " --set /devices/gpu0/issue_overhead=15", "a quantity needs its unit");
  fails_with(kRun + out + " --set /devices/gpu0/issue_overhead=15GBps", "for a time");
  fails_with("run --platform dgx-a100-cluster --workload bert-base --report-only -q --out " + out +
                 " --set /devices/gpu0/issue_overhead=1us",
             "not a cluster template");
}
