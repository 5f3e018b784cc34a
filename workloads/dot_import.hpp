#pragma once
// DAGs in Graphviz DOT with SimGrid's DAG conventions (SimGrid's `dag_load_from_dot`, examples/cpp/dag-*):
// a node's `size` is its computation in FLOPs, an edge's `size` the bytes it carries (absent or 0: a pure
// dependency). Parsed here because Debian's SimGrid is built without Graphviz and cannot load DOT.
// Also read, as HeteroSim extensions: node `kind` and `precision`. Other attributes (label, shape, ...)
// are ignored. Errors name the file and the line.
#include "sim/graph.hpp"

#include <string>

namespace hs {

Graph parse_dot(const std::string& text, const std::string& file_label);
Graph load_dot(const std::string& path);

} // namespace hs
