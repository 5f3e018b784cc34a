#pragma once
// Small platforms and graphs for tests, written inline so each test shows all it depends on.
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/platform.hpp"

#include <string>

namespace hs::test {

inline std::string source_dir() {
  return HS_SOURCE_DIR;
}

// A device block with one precision (fp32) and simple round numbers.
inline std::string device_json(const std::string& name, const std::string& kind, const std::string& flops,
                               const std::string& idle = "10W", const std::string& busy = "110W") {
  return R"({"name": ")" + name + R"(", "kind": ")" + kind + R"(", "peak": {"fp32": ")" + flops +
         R"("}, "memory": {"bandwidth": "1TBps", "capacity": "16GB"}, "power": {"idle": ")" + idle +
         R"(", "busy": ")" + busy + R"("}, "copy_engines": 4})";
}

// A GPU block with its copy engines and streams given (16 GB, 1 TB/s, fp32 only).
inline std::string gpu_json(const std::string& name, const std::string& flops, int copy_engines,
                            int streams = 1) {
  return R"({"name": ")" + name + R"(", "kind": "gpu", "peak": {"fp32": ")" + flops +
         R"("}, "memory": {"bandwidth": "1TBps", "capacity": "16GB"}, "power": {"idle": "10W", "busy": "110W"},
         "copy_engines": )" +
         std::to_string(copy_engines) + R"(, "streams": )" + std::to_string(streams) + "}";
}

// Two accelerators a and b behind one switch uplink to a host cpu: the contention case.
inline Platform switch_platform(const std::string& uplink_sharing = "split-duplex") {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "switch",
    "devices": [)" + device_json("cpu", "cpu", "1Tf") +
                            "," + device_json("a", "gpu", "10Tf") + "," + device_json("b", "gpu", "10Tf") +
                            R"(],
    "links": [
      {"name": "link_a", "bandwidth": "64GBps", "latency": 0},
      {"name": "link_b", "bandwidth": "64GBps", "latency": 0},
      {"name": "uplink", "bandwidth": "32GBps", "latency": 0, "sharing": ")" +
                            uplink_sharing + R"(",
       "power": {"idle": "2W", "busy": "6W"}}],
    "routes": [
      {"from": "a", "to": "cpu", "links": ["link_a", "uplink"]},
      {"from": "b", "to": "cpu", "links": ["link_b", "uplink"]},
      {"from": "a", "to": "b", "links": ["link_a", {"link": "link_b", "reverse": true}]}]})",
                        "switch-platform");
}

} // namespace hs::test
