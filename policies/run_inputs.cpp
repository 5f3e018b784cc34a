#include "policies/run_inputs.hpp"

#include "policies/policy_config.hpp"
#include "workloads/workload_registry.hpp"

namespace hs {

namespace {
Graph load_graph_for(const InputFiles& f, const Platform& p) {
  Graph g = load_workload(f.workload, f.seed);
  return f.transform ? f.transform(std::move(g), p) : g;
}

// --calibration: none given, the platform's own; "none", the devices' figures alone; else that file or name.
Calibration calibration_for(const InputFiles& f, const Platform& p) {
  if (f.calibration.empty()) return p.calibration ? *p.calibration : Calibration{};
  if (f.calibration == "none") return {};
  return load_calibration(f.calibration, p);
}
} // namespace

RunInputs::RunInputs(const InputFiles& f)
    : platform_(f.platform_loader ? f.platform_loader(f.platform) : load_platform(f.platform)),
      graph_(load_graph_for(f, platform_)), calibration_(calibration_for(f, platform_)),
      scenario_(f.scenario.empty() ? Scenario{} : load_scenario(f.scenario, platform_)),
      config_(f.policy_config.empty() ? nullptr : load_policy_config(f.policy_config)), seed_(f.seed),
      cost_(graph_, platform_, calibration_) {}

} // namespace hs
