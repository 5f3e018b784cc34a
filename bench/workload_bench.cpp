// Builds each model at a realistic size and prints ops, tensors, FLOPs, parameters and the build time
// (median of 5 builds). Speeds are measurements of this machine, for the record, not assertions.
//   build/workload_bench [spec ...]     (no arguments: the standard list below)
#include "workloads/graph_summary.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> specs(argv + 1, argv + argc);
  if (specs.empty())
    specs = {"resnet18:batch=32",
             "resnet18:batch=32,mode=training",
             "resnet50:batch=32",
             "resnet50:batch=32,mode=training",
             "bert-base:batch=8,seq=128",
             "bert-base:batch=32,seq=128,mode=training",
             "bert-large:batch=8,seq=128",
             "bert-large:batch=32,seq=128,mode=training",
             "gpt2-small:batch=1,seq=128,decode=8",
             "gpt2-small:batch=8,seq=1024,mode=training",
             "gpt2-medium:batch=1,seq=128,decode=8",
             "gpt2-medium:batch=8,seq=1024,mode=training",
             "gpt2-large:batch=1,seq=128,decode=8",
             "gpt2-large:batch=8,seq=1024,mode=training",
             "gcn",
             "gcn:mode=training",
             "graphsage",
             "graphsage:mode=training"};
  std::printf("%-46s %8s %8s %14s %14s %10s\n", "workload", "ops", "tensors", "GFLOP", "parameters",
              "build ms");
  for (const auto& spec : specs) {
    std::vector<double> ms;
    hs::GraphSummary s;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const hs::Graph g = hs::load_workload(spec, 1);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (i == 0) s = hs::summarize(g);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-46s %8d %8d %14.3f %14.0f %10.1f\n", spec.c_str(), s.ops, s.tensors, s.flops / 1e9,
                s.parameters, ms[2]);
  }
  return 0;
}
