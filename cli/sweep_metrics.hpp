#pragma once
// What a sweep reads from each point's report.json: named metrics, or any number in the report by a JSON
// pointer ("/devices/gpu0/utilization").
#include "sim/json_input.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hs::cli {

// The named metrics, in the order `heterosim sweep --help` lists them.
const std::vector<std::string>& sweep_metric_names();
// One line per named metric: what it is.
std::string sweep_metric_help();
// Fails at `where` unless `metric` is a named metric or a JSON pointer ("/...").
void check_sweep_metric(const std::string& metric, const JsonNode& where);
// The metric's value in a report, or nothing when the report has no such number (a pointer to a device
// that a variant removed).
std::optional<double> sweep_metric(const Json& report, const std::string& metric);

} // namespace hs::cli
