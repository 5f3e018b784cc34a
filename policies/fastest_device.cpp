// The baseline every comparison is relative to: the whole graph on the one device that finishes it
// first on its own (no transfers, ops in topological order).
#include "policies/policy.hpp"
#include "policies/single_device.hpp"

namespace hs {
namespace {

struct FastestDevice {
  std::string name() const { return "fastest-device"; }
  std::string description() const { return "whole graph on the single device that runs it fastest alone"; }
  Plan plan(const PolicyContext& ctx) const {
    std::string why_not;
    auto plan = fastest_single_device_plan(ctx.cost, name(), &why_not);
    if (!plan) throw PlanError("no single device can run the whole graph (for example: " + why_not + ")");
    return std::move(*plan);
  }
};

} // namespace

HS_REGISTER_POLICY(FastestDevice)

} // namespace hs
