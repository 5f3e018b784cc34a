#pragma once
// What `run`, `compare`, `explain`, `pareto` and the Python module load before they plan, in one place:
// the platform, the workload (and a transformation of it, such as --parallel), the calibration, the
// scenario and the policy parameters, read and checked in that order, and the cost model over them.
#include "policies/policy.hpp"
#include "sim/calibration.hpp"
#include "sim/cost_model.hpp"
#include "sim/scenario.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace hs {

struct PolicyConfig; // policies/policy_config.hpp

struct InputFiles {
  std::string platform; // a file or a preset name
  std::string workload; // a file or a builder spec
  // calibration: empty for the platform's own (Platform::calibration), "none" for the devices' figures alone.
  std::string calibration, scenario, policy_config; // optional: empty for none
  std::uint64_t seed = 0;
  // Applied to the loaded workload before the cost model is built (run's --parallel); may be empty.
  std::function<Graph(Graph, const Platform&)> transform = nullptr;
  // Loads `platform` in place of load_platform (run's --set); may be empty.
  std::function<Platform(const std::string&)> platform_loader = nullptr;
};

class RunInputs {
public:
  explicit RunInputs(const InputFiles& files);
  RunInputs(const RunInputs&) = delete; // the cost model refers to the platform and graph held here
  RunInputs& operator=(const RunInputs&) = delete;

  const Platform& platform() const { return platform_; }
  const Graph& graph() const { return graph_; }
  const Calibration& calibration() const { return calibration_; }
  const Scenario& scenario() const { return scenario_; }
  const CostModel& cost() const { return cost_; }
  // What a policy is given: the cost model, the seed and the policy parameters.
  PolicyContext context() const { return {cost_, seed_, config_}; }

private:
  Platform platform_;
  Graph graph_;
  Calibration calibration_;
  Scenario scenario_;
  std::shared_ptr<const PolicyConfig> config_;
  std::uint64_t seed_;
  CostModel cost_; // last: built over the members above
};

} // namespace hs
