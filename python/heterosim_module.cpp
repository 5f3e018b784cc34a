// The Python module's native half (`heterosim._native`): platforms and workloads as objects, runs and
// Pareto searches returning their JSON reports as text, which python/heterosim/__init__.py turns into
// dicts. Errors arrive in Python as ValueError (bad input) or RuntimeError, with HeteroSim's message.
#include "policies/pareto/archive_search.hpp"
#include "policies/pareto/front_report.hpp"
#include "policies/pareto/objectives.hpp"
#include "policies/pareto/problem.hpp"
#include "policies/pareto/search_state.hpp"
#include "policies/policy.hpp"
#include "policies/policy_runner.hpp"
#include "sim/error.hpp"
#include "sim/platform.hpp"
#include "sim/report.hpp"
#include "workloads/workload_registry.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace hs;

namespace {

std::vector<std::string> device_names(const Platform& p) {
  std::vector<std::string> names;
  for (const auto& d : p.devices)
    names.push_back(d.name);
  return names;
}

std::vector<std::string> workload_builder_names() {
  std::vector<std::string> names;
  for (const auto& b : workload_builders().all())
    names.push_back(b.name);
  return names;
}

std::string run_plan(const Platform& platform, const Graph& graph, const std::string& policy,
                     const std::string& engine, std::uint64_t seed) {
  require_known_policy(policy);
  const CostModel cost(graph, platform);
  const PolicyContext ctx{cost, seed};
  PolicyOutcome out = execute_policy(policy, ctx, Scenario{}, engine);
  const Report report = make_report({platform.name, graph.name, policy, seed}, out.plan, cost,
                                    std::move(out.execution), std::move(out.cross_check));
  return report_json(report).dump();
}

std::string pareto_front(const Platform& platform, const Graph& graph, int budget, std::uint64_t seed,
                         const std::string& objectives, bool replay) {
  if (budget < 1) throw InputError("budget", std::to_string(budget), "must be at least 1");
  const CostModel cost(graph, platform);
  pareto::ProblemOptions po;
  po.objectives = pareto::parse_objective_list(objectives, "objectives");
  const pareto::ParetoProblem problem(cost, po);
  std::vector<std::string> skipped;
  const auto baselines = problem.baselines(seed, &skipped);
  pareto::SearchState state(problem, budget, {});
  pareto::run_archive_search(state, baselines, seed);
  pareto::FrontReport report = pareto::make_front_report(state);
  report.platform = platform.name;
  report.workload = graph.name;
  report.algorithm = "archive search";
  report.seed = seed;
  report.baselines = baselines;
  report.skipped_baselines = skipped;
  if (replay) pareto::replay_in_simgrid(problem, report);
  return pareto::front_json(problem, report).dump();
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "HeteroSim's native module; use the `heterosim` package.";
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<PlanError>(m, "PlanError", PyExc_ValueError);

  py::class_<Platform>(m, "Platform")
      .def_readonly("name", &Platform::name)
      .def_readonly("description", &Platform::description)
      .def_property_readonly("devices", &device_names)
      .def("__repr__", [](const Platform& p) {
        return "<heterosim.Platform " + p.name + ": " + std::to_string(p.devices.size()) + " devices>";
      });
  py::class_<Graph>(m, "Graph")
      .def_readonly("name", &Graph::name)
      .def_property_readonly("op_count", &Graph::op_count)
      .def_property_readonly("tensor_count", &Graph::tensor_count)
      .def("__repr__", [](const Graph& g) {
        return "<heterosim.Graph " + g.name + ": " + std::to_string(g.op_count()) + " ops>";
      });

  m.def("load_platform", &load_platform, py::arg("name_or_path"), "A preset name or a platform JSON file.");
  m.def("load_workload", &load_workload, py::arg("spec_or_path"), py::arg("seed") = 0,
        "A builder spec (\"bert-base\", \"random:ops=200\") or a graph file (.json, .dot, .onnx).");
  m.def("platform_names", &preset_platform_names);
  m.def("policy_names", &all_policy_names);
  m.def("workload_builders", &workload_builder_names);
  m.def("run_json", &run_plan, py::arg("platform"), py::arg("graph"), py::arg("policy"), py::arg("engine"),
        py::arg("seed"), py::call_guard<py::gil_scoped_release>());
  m.def("pareto_json", &pareto_front, py::arg("platform"), py::arg("graph"), py::arg("budget"),
        py::arg("seed"), py::arg("objectives"), py::arg("replay"), py::call_guard<py::gil_scoped_release>());
}
