// The CLI's plug-in modules (cli/plugins.hpp): gnn-placement comes from build/plugins/heterosim_gnn.so and
// `validate` from heterosim_validation.so, not
// from the program, and a module built against other headers is refused by its stamp.
#include "cli_support.hpp"
#include "policies/policy_runner.hpp"
#include "sim/platform.hpp"
#include "workloads/workload_registry.hpp"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using hs::test::heterosim;

#ifdef HS_HAVE_GNN_PLUGIN
namespace {
const fs::path gnn_module = fs::path(HS_CLI).parent_path() / "plugins" / "heterosim_gnn.so";
}

TEST_CASE("the CLI gets gnn-placement from its plug-in module, and runs it as the library does") {
  REQUIRE(fs::exists(gnn_module));
  CHECK(heterosim("policies").output.find("gnn-placement") != std::string::npos);
  // With no plug-in directory the program has no such policy: it is not linked in.
  const auto bare = heterosim("policies", "HETEROSIM_PLUGINS=");
  CHECK(bare.exit_code == 0);
  CHECK(bare.output.find("gnn-placement") == std::string::npos);
  CHECK(bare.output.find("heft") != std::string::npos);

  const fs::path out = hs::test::scratch_dir("plugin", "run");
  const auto run = heterosim("run --platform hetero-server --workload random:ops=60,precision=fp16 --seed 3 "
                             "--policy gnn-placement --engine evaluator --report-only -q --out " +
                             out.string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  const double cli = nlohmann::json::parse(hs::test::slurp(out / "report.json"))["makespan_s"].get<double>();
  // The same policy in this process, where the tests link gnn/ directly.
  const hs::Graph g = hs::load_workload("random:ops=60,precision=fp16", 3);
  const hs::Platform p = hs::load_platform("hetero-server");
  const hs::CostModel cost(g, p);
  const auto here = hs::execute_policy("gnn-placement", {cost, 3}, {}, "evaluator");
  CHECK(cli == doctest::Approx(here.execution.makespan).epsilon(1e-12));
}

TEST_CASE("a plug-in module without this program's stamp is skipped with a warning naming it") {
  const fs::path dir = hs::test::scratch_dir("plugin", "stale");
  fs::copy_file(gnn_module, dir / "heterosim_gnn.so");
  const std::string env = "HETEROSIM_PLUGINS=" + dir.string();
  const auto unstamped = heterosim("policies", env);
  CHECK(unstamped.exit_code == 0);
  CHECK(unstamped.output.find("no stamp file " + (dir / "heterosim_gnn.so.abi").string()) !=
        std::string::npos);
  CHECK(unstamped.output.find("gnn-placement") == std::string::npos);

  hs::test::write_file(dir / "heterosim_gnn.so.abi", "0123abcd\n");
  const auto stale = heterosim("run --platform hetero-server --workload random:ops=20 --policy gnn-placement "
                               "--report-only -q --out " +
                                   (dir / "out").string(),
                               env);
  CHECK(stale.exit_code == 1);
  CHECK(stale.output.find("built against other headers than this program") != std::string::npos);
  CHECK(stale.output.find("unknown policy 'gnn-placement'") != std::string::npos);

  fs::copy_file(gnn_module.string() + ".abi", dir / "heterosim_gnn.so.abi",
                fs::copy_options::overwrite_existing);
  CHECK(heterosim("policies", env).output.find("gnn-placement") != std::string::npos);
}
#endif

TEST_CASE("a plug-in directory with no modules leaves the CLI as it is") {
  const fs::path dir = hs::test::scratch_dir("plugin", "empty");
  const auto listed = heterosim("policies", "HETEROSIM_PLUGINS=" + dir.string());
  CHECK(listed.exit_code == 0);
  CHECK(listed.output.find("heft") != std::string::npos);
  CHECK(listed.output.find("warning") == std::string::npos);
}

TEST_CASE("the CLI gets `validate` and `calibrate` from the validation module, and has no such command "
          "without it") {
  REQUIRE(fs::exists(fs::path(HS_CLI).parent_path() / "plugins" / "heterosim_validation.so"));
  const auto with_module = heterosim("validate --help");
  CHECK(with_module.exit_code == 0);
  CHECK(with_module.output.find("--torch-kernels") != std::string::npos);
  CHECK(heterosim("--help").output.find("validate") != std::string::npos);
  // The program itself links no validation/ code: without its modules, the command does not exist.
  const auto bare = heterosim("validate --quiet", "HETEROSIM_PLUGINS=");
  CHECK(bare.exit_code == 1);
  CHECK_MESSAGE(bare.output.find("unknown command 'validate'; commands: run, build-workload") !=
                    std::string::npos,
                bare.output);
  CHECK(bare.output.find("need their module in a plug-in directory (none found)") != std::string::npos);
  CHECK(heterosim("valdate", "").output.find("did you mean 'validate'?") != std::string::npos);
  CHECK(heterosim("--help", "HETEROSIM_PLUGINS=").output.find("validate") == std::string::npos);
  // `calibrate` (cli/calibrate_command.cpp) comes from the same module.
  CHECK(heterosim("calibrate --help").output.find("--trace") != std::string::npos);
  CHECK(heterosim("calibrate --quiet", "HETEROSIM_PLUGINS=").output.find("unknown command 'calibrate'") !=
        std::string::npos);
}
