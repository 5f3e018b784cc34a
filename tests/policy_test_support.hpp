#pragma once
// Hand-made platforms and graphs for the policy tests, inline so each test shows what it depends on.
#include "policies/policy.hpp"
#include "schedule_checks.hpp"
#include "sim/execution.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <string>

namespace hs::test {

// A cpu and two identical gpus (gpu kind) on a switch; gpus have a launch overhead and two p-states.
inline Platform cpu_two_gpus(const std::string& gpu_capacity = "16GB") {
  const auto gpu = [&](const std::string& name) {
    return R"({"name": ")" + name + R"(", "kind": "gpu", "peak": {"fp32": "10Tf"}, "launch_overhead": "5us",
      "memory": {"bandwidth": "1TBps", "capacity": ")" +
           gpu_capacity + R"("}, "copy_engines": 2,
      "pstates": [{"speed": 1, "idle": "10W", "busy": "110W"}, {"speed": 0.5, "idle": "8W", "busy": "40W"}]})";
  };
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "cpu-two-gpus",
    "devices": [{"name": "cpu", "kind": "cpu", "peak": {"fp32": "1Tf"}, "launch_overhead": "1us",
                 "memory": {"bandwidth": "100GBps", "capacity": "64GB"}, "copy_engines": 2,
                 "power": {"idle": "20W", "busy": "120W"}},)" +
                            gpu("a") + "," + gpu("b") + R"(],
    "links": [{"name": "link_a", "bandwidth": "32GBps"}, {"name": "link_b", "bandwidth": "32GBps"},
              {"name": "nvlink", "bandwidth": "100GBps"}],
    "routes": [{"from": "a", "to": "cpu", "links": ["link_a"]}, {"from": "b", "to": "cpu", "links": ["link_b"]},
               {"from": "a", "to": "b", "links": ["nvlink"]}]})",
                        "cpu-two-gpus");
}

// A source op fanning out to `width` independent chains of `length` GEMMs (1 ms each on a gpu at nominal
// speed, 10 ms on the cpu), joined by a sink: plenty of parallel work that interference can unbalance.
inline Graph chains(int width, int length) {
  GraphBuilder b("chains");
  auto src = b.op("src").kind("elementwise").flops(1e3).reads(1e3).writes(1e3);
  auto sink = b.op("sink").kind("elementwise").flops(1e3).reads(1e3).writes(1e3);
  for (int c = 0; c < width; ++c) {
    OpHandle prev = src;
    for (int k = 0; k < length; ++k) {
      // 1e10 flops at 10 Tflop/s = 1 ms; 10 MB moved is far below the ridge point, so compute-bound.
      std::string name = "c";
      name += std::to_string(c);
      name += '_';
      name += std::to_string(k);
      auto op = b.op(name).kind("gemm").flops(1e10).reads(5e6).writes(5e6);
      prev.feeds(op, 1e5);
      prev = op;
    }
    prev.feeds(sink, 1e3);
  }
  return std::move(b).build();
}

using test::check_dependencies;

inline int ops_on(const Plan& plan, DeviceId d) {
  return static_cast<int>(std::count(plan.device.begin(), plan.device.end(), d));
}

} // namespace hs::test
