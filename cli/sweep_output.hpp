#pragma once
// What a finished sweep writes: OUT/sweep.csv, one SVG per plot in OUT/plots/, and a summary of the points
// whose run did not succeed.
#include "cli/sweep_spec.hpp"

#include <string>
#include <vector>

namespace hs::cli {

// Returns the exit code: 0, or 5 when a point's run crashed or failed inside HeteroSim (its log says why).
int write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points, const std::string& out,
                        bool quiet);

} // namespace hs::cli
