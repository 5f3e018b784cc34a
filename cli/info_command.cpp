// `heterosim info --workload FILE_OR_SPEC`: what a workload amounts to (ops, FLOPs, bytes, parameters,
// arithmetic intensity by op kind, critical path).
#include "cli/commands.hpp"
#include "sim/units.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/workload_registry.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct InfoOptions {
  std::string workload;
  std::uint64_t seed = 0;
};

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

int info(const InfoOptions& o) {
  const Graph g = load_workload(o.workload, o.seed);
  const GraphSummary s = summarize(g);
  std::cout << "workload      " << g.name << "\n"
            << "ops           " << s.ops << " (" << s.tensors << " tensors, "
            << units::format_bytes(s.tensor_bytes) << ")\n"
            << "FLOPs         " << fixed(s.flops, 0) << " (" << units::format_flops(s.flops) << ")\n"
            << "bytes         " << units::format_bytes(s.bytes_read) << " read, "
            << units::format_bytes(s.bytes_written) << " written\n"
            << "parameters    " << fixed(s.parameters, 0) << " (" << units::format_bytes(s.param_bytes)
            << " resident)\n";
  if (s.optimizer_state_bytes > 0)
    std::cout << "optimizer     " << units::format_bytes(s.optimizer_state_bytes) << " of state\n";
  std::cout << "critical path " << s.depth << " ops, " << units::format_flops(s.critical_path_flops);
  if (g.uses_explicit_times())
    std::cout << ", " << fixed(s.critical_path_seconds, 6) << " s at mean op times and given edge times";
  std::cout << "\n\n";
  std::printf("%-12s %8s %16s %16s %10s\n", "kind", "ops", "FLOPs", "bytes", "FLOP/byte");
  for (const auto& [kind, k] : s.by_kind)
    std::printf("%-12s %8d %16.0f %16.0f %10.2f\n", kind.c_str(), k.ops, k.flops, k.bytes, k.intensity());
  return 0;
}

Action info_command(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand(
      "info", "Summarise a workload: ops, FLOPs, bytes, parameters, intensity by op kind, critical path");
  cmd->add_option("--workload", o->workload, "Graph file or builder spec such as bert-base:batch=8,seq=128")
      ->required();
  cmd->add_option("--seed", o->seed, "Seed for random builders")->capture_default_str();
  return [o] { return info(*o); };
}

const bool registered = register_command({"info", info_command});

} // namespace
} // namespace hs::cli
