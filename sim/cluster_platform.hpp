#pragma once
// N copies of a node platform joined by a network, described once (format "heterosim-cluster"):
//
//   {"format": "heterosim-cluster", "version": 1, "name": "dgx-a100-cluster", "node": "multi-gpu-node",
//    "nodes": 4, "network": {"topology": "rail-optimised",
//                            "nic": {"bandwidth": "25GBps", "latency": "1us", "source": "..."},
//                            "host_nic": {"device": "cpu0", "bandwidth": "25GBps", ...},
//                            "spine": {"latency": "1us", "source": "..."}}}
//
// Node k's devices, switches and links are the node file's, renamed "n<k>.<name>". Rail-optimised: GPU i
// of every node has its own NIC, cabled to leaf switch "rail<i>" (so same-index GPUs of different nodes
// are one leaf apart, as in NVIDIA's DGX SuperPOD), and every leaf has an uplink to one non-blocking
// "spine" of nodes x NIC bandwidth for traffic between rails. Parameters given as "name:nodes=16" override
// the file's. The node's "calibration" (docs/calibration.md) costs the cluster's devices, unless the cluster
// file names its own.
#include "sim/json_input.hpp"

#include <map>
#include <string>

namespace hs {

// The platform document (format "heterosim-platform") the cluster file `cluster` describes; `file` is its
// path, for messages and for finding the node file beside it or among the presets.
Json expand_cluster(const Json& cluster, const std::string& file,
                    const std::map<std::string, std::string>& overrides);

} // namespace hs
