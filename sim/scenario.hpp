#pragma once
// What-if conditions for a SimGrid replay: background load on devices and degraded links (SimGrid speed
// and bandwidth profiles), and op-time noise. Static plans and run-time policies meet the same scenario,
// so they can be compared under interference and uncertainty. The analytic engine ignores scenarios.
#include "sim/platform.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hs {

// From `at` seconds on, the resource runs at `availability` times its nominal speed or bandwidth
// (until the next step). Before the first step it runs at 1.
struct AvailabilityStep {
  double at = 0.0;
  double availability = 1.0;
};

struct ResourceProfile {
  int index = -1;                      // device id or link id
  std::vector<AvailabilityStep> steps; // sorted by `at`
};

struct Scenario {
  std::string file;
  std::vector<ResourceProfile> devices;
  std::vector<ResourceProfile> links;
  double noise_cv = 0.0; // op durations are multiplied by a lognormal factor of mean 1 and this CV
  std::uint64_t noise_seed = 0;

  bool empty() const { return devices.empty() && links.empty() && noise_cv == 0.0; }
  // Duration factor per op (all 1 without noise); the same for a given seed and op count.
  std::vector<double> op_time_factors(int ops) const;
};

// Format "heterosim-scenario", version 1 (see docs/policies.md). Device and link names are checked
// against `p`; errors name the file and the place in it.
Scenario load_scenario(const std::string& path, const Platform& p);
Scenario parse_scenario(const std::string& json_text, const std::string& file_label, const Platform& p);

} // namespace hs
