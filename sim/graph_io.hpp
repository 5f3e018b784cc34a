#pragma once
// The workload file format (format "heterosim-graph", version 1), read and written.
#include "sim/graph.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace hs {

Graph load_graph(const std::string& path);
Graph parse_graph(const nlohmann::json& j, const std::string& file_label);
nlohmann::json graph_to_json(const Graph& g);

} // namespace hs
