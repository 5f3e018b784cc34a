// The Gantt chart and its critical path, on the textbook example (Topcuoglu et al. 2002, HEFT's schedule
// of length 80) and through `heterosim run`.
#include "cli_support.hpp"
#include "policies/policy.hpp"
#include "sim/copy_lanes.hpp"
#include "sim/critical_path.hpp"
#include "sim/gantt_chart.hpp"
#include "sim/graph_io.hpp"
#include "sim/simgrid_engine.hpp"
#include "svg_text.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <doctest/doctest.h>

using namespace hs;
namespace fs = std::filesystem;

namespace {

const std::string kTextbookPlatform = test::source_dir() + "/platforms/textbook-3p.json";
const std::string kTextbookGraph = test::source_dir() + "/workloads/examples/topcuoglu2002.json";

double start_of(const Execution& e, const Activity& a) {
  return a.kind == Activity::Kind::Op ? e.ops[a.index].start : e.transfers[a.index].start;
}
double end_of(const Execution& e, const Activity& a) {
  return a.kind == Activity::Kind::Op ? e.ops[a.index].end : e.transfers[a.index].end;
}

// Whether `next` could not start before `prev` ended: a producer and its transfer, a transfer and its
// consumer, an op and a consumer on its device, or two ops in a row on one stream.
bool depends_on(const Graph& g, const Plan& plan, const Execution& e, const Activity& prev,
                const Activity& next) {
  using K = Activity::Kind;
  if (prev.kind == K::Op && next.kind == K::Transfer)
    return g.tensor(e.transfers[next.index].tensor).producer == prev.index;
  const auto& inputs = g.op(next.index).inputs;
  if (prev.kind == K::Transfer) {
    const TransferRun& t = e.transfers[prev.index];
    return t.to == plan.device[next.index] &&
           std::find(inputs.begin(), inputs.end(), t.tensor) != inputs.end();
  }
  for (TensorId t : inputs)
    if (g.tensor(t).producer == prev.index && plan.device[prev.index] == plan.device[next.index]) return true;
  const auto& queue = plan.queues[plan.device[next.index]][plan.stream[next.index]];
  const auto at = std::find(queue.begin(), queue.end(), next.index);
  return at != queue.begin() && at != queue.end() && *(at - 1) == prev.index;
}

} // namespace

TEST_CASE("Gantt chart of HEFT on the textbook example: rows, one bar per activity, a critical path to 80") {
  const Platform p = load_platform(kTextbookPlatform);
  const Graph g = load_graph(kTextbookGraph);
  const CostModel cost(g, p);
  const Plan plan = policy_by_name("heft").plan({cost, 0});
  const Report r = make_report({"textbook-3p", g.name, "heft", 0}, plan, cost, run_simgrid(plan, cost));
  REQUIRE(r.execution.makespan == doctest::Approx(80.0).epsilon(1e-6));

  const auto path = critical_path(r.execution, plan, g);
  REQUIRE(path.size() >= 2);
  CHECK(end_of(r.execution, path.back()) == doctest::Approx(80.0).epsilon(1e-6));
  CHECK(start_of(r.execution, path.front()) == doctest::Approx(0.0));
  for (std::size_t k = 1; k < path.size(); ++k) {
    CAPTURE(k);
    CHECK(depends_on(g, plan, r.execution, path[k - 1], path[k]));
    CHECK(end_of(r.execution, path[k - 1]) <= start_of(r.execution, path[k]) + 1e-6);
  }
  std::vector<std::string> ops_on_path;
  for (const Activity& a : path)
    if (a.kind == Activity::Kind::Op) ops_on_path.push_back(g.op(a.index).name);
  CHECK(ops_on_path.front() == "n1");
  CHECK(ops_on_path.back() == "n10");

  const std::string svg = gantt_svg(r);
  int streams_in_use = 0;
  for (const auto& streams : plan.queues)
    for (const auto& q : streams)
      streams_in_use += !q.empty();
  CHECK(test::count(svg, "class=\"row\"") ==
        streams_in_use + static_cast<int>(assign_copy_lanes(r.execution).lanes.size()));
  int ops = 0, transfers = 0, critical = 0;
  for (const auto& rect : test::elements(svg, "rect")) {
    const std::string cls = test::attribute(rect, "class");
    ops += cls.rfind("op", 0) == 0;
    transfers += cls.rfind("transfer", 0) == 0;
    critical += cls.find("critical") != std::string::npos;
  }
  CHECK(ops == g.op_count());
  CHECK(transfers == static_cast<int>(r.execution.transfers.size()));
  CHECK(critical == static_cast<int>(path.size()));
  CHECK(test::count(svg, "class=\"critical-link\"") == static_cast<int>(path.size()) - 1);
  for (const auto& d : p.devices)
    CHECK(svg.find(">" + d.name + " stream 0</text>") != std::string::npos);
  CHECK(svg.find(">80 s</text>") != std::string::npos); // the time axis reaches the makespan
  CHECK(svg == gantt_svg(r));
}

TEST_CASE("critical path on a larger replay: a dependency chain, each link after the last, ending at the "
          "makespan") {
  const Platform p = load_platform("hetero-server");
  const Graph g = load_workload("random:ops=300,precision=fp16", 3);
  const CostModel cost(g, p);
  const Plan plan = policy_by_name("heft").plan({cost, 3});
  const Execution e = run_simgrid(plan, cost);
  const auto path = critical_path(e, plan, g);
  REQUIRE(path.size() >= 2);
  CHECK(path.back().kind == Activity::Kind::Op);
  CHECK(end_of(e, path.back()) == e.makespan);
  for (std::size_t k = 1; k < path.size(); ++k) {
    CAPTURE(k);
    CHECK(depends_on(g, plan, e, path[k - 1], path[k]));
    CHECK(end_of(e, path[k - 1]) <= start_of(e, path[k]) + 1e-9 * e.makespan);
  }
  // In a correct replay every dependency ends by its dependant's start, so the walk stops only at an op
  // with none: no producing op and first on its stream.
  const Activity& first = path.front();
  REQUIRE(first.kind == Activity::Kind::Op);
  const auto& queue = plan.queues[plan.device[first.index]][plan.stream[first.index]];
  bool has_dependency = queue.front() != first.index;
  for (TensorId t : g.op(first.index).inputs)
    has_dependency = has_dependency || g.tensor(t).producer >= 0;
  CHECK_FALSE(has_dependency);
}

TEST_CASE("run writes gantt.svg, and gantt.png when rsvg-convert is on PATH, never over old files") {
  const fs::path dir = test::scratch_dir("gantt-test", "run");
  const std::string cmd =
      "run --platform " + kTextbookPlatform + " --workload " + kTextbookGraph + " --policy heft --out ";
  const auto first = test::heterosim(cmd + (dir / "a").string());
  REQUIRE(first.exit_code == 0);
  const std::string svg = test::slurp(dir / "a" / "gantt.svg");
  CHECK(svg.rfind("<svg ", 0) == 0);
  CHECK(test::count(svg, "class=\"op") == 10);
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  const bool have_converter = system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  if (have_converter) {
    CHECK(test::slurp(dir / "a" / "gantt.png").substr(1, 3) == "PNG");
    CHECK(first.output.find("note:") == std::string::npos);
  }
  const auto again = test::heterosim(cmd + (dir / "a").string());
  CHECK(again.exit_code != 0);
  CHECK(again.output.find("--force") != std::string::npos);

  ::setenv("PATH", "/nonexistent", 1); // the shell and the CLI are named by absolute paths
  const auto without = test::heterosim(cmd + (dir / "b").string());
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(without.exit_code == 0);
  CHECK(without.output.find("note: ") != std::string::npos);
  CHECK(without.output.find("rsvg-convert") != std::string::npos);
  CHECK(fs::exists(dir / "b" / "gantt.svg"));
  CHECK_FALSE(fs::exists(dir / "b" / "gantt.png"));
  CHECK(test::slurp(dir / "b" / "gantt.svg") == svg);

  if (have_converter) { // --force without the converter leaves no stale PNG of an earlier run behind
    ::setenv("PATH", "/nonexistent", 1);
    const auto forced = test::heterosim(cmd + (dir / "a").string() + " --force");
    ::setenv("PATH", saved.c_str(), 1);
    CHECK(forced.exit_code == 0);
    CHECK(forced.output.find("old PNG was removed") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "a" / "gantt.png"));
  }
}
