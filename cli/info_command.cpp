// `heterosim info --workload FILE_OR_SPEC`: what a workload amounts to (ops, FLOPs, bytes, parameters,
// arithmetic intensity by op kind, critical path). `heterosim info --platform NAME [--routes]`: a
// platform's devices, switches and links, and with --routes the route of every pair of devices.
#include "cli/commands.hpp"
#include "sim/calibration.hpp"
#include "sim/platform.hpp"
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
  std::string platform;
  bool routes = false;
  std::uint64_t seed = 0;
};

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string hop_list(const Platform& p, const Route& r) {
  std::string out;
  for (const auto& h : r.hops)
    out += (out.empty() ? "" : ", ") + p.links[static_cast<std::size_t>(h.link)].name +
           (h.forward ? "" : " (reverse)");
  return out;
}

void print_routes(const Platform& p) {
  std::printf("\n%-10s %-10s %-9s %10s %14s  %s\n", "from", "to", "origin", "latency", "bandwidth", "hops");
  for (DeviceId a = 0; a < p.device_count(); ++a)
    for (DeviceId b = 0; b < p.device_count(); ++b) {
      const Route* r = a != b ? p.route(a, b) : nullptr;
      if (!r) continue;
      std::printf("%-10s %-10s %-9s %10s %14s  %s\n", p.devices[static_cast<std::size_t>(a)].name.c_str(),
                  p.devices[static_cast<std::size_t>(b)].name.c_str(), r->computed ? "computed" : "explicit",
                  units::format_time(r->latency).c_str(), (units::format_bytes(r->bandwidth) + "/s").c_str(),
                  hop_list(p, *r).c_str());
    }
  std::printf("(reverse: the link is crossed from its second end to its first)\n");
}

int platform_info(const InfoOptions& o) {
  const Platform p = load_platform(o.platform);
  std::string devices, nodes;
  for (const auto& d : p.devices)
    devices += (devices.empty() ? "" : ", ") + d.name + " (" + d.kind + ")";
  for (const auto& n : p.nodes)
    nodes += (nodes.empty() ? "" : ", ") + n.name + " (" + n.kind + ")";
  int routed = 0, computed = 0;
  for (DeviceId a = 0; a < p.device_count(); ++a)
    for (DeviceId b = 0; b < p.device_count(); ++b)
      if (const Route* r = a != b ? p.route(a, b) : nullptr) {
        ++routed;
        computed += r->computed ? 1 : 0;
      }
  std::cout << "platform      " << p.name << " (" << p.file << ")\n"
            << "devices       " << p.devices.size() << ": " << devices << "\n"
            << "nodes         " << p.nodes.size() << (nodes.empty() ? "" : ": " + nodes) << "\n"
            << "links         " << p.links.size() << "\n"
            << "routes        " << routed << " (" << computed << " computed from the links' ends, "
            << routed - computed << " explicit)" << (o.routes ? "" : "; --routes lists them") << "\n";
  if (p.calibration) std::cout << calibration_usage_text(*p.calibration, p);
  if (o.routes) print_routes(p);
  return 0;
}

int info(const InfoOptions& o) {
  if (o.workload.empty() == o.platform.empty())
    throw std::invalid_argument("info needs one of --workload or --platform");
  if (!o.platform.empty()) return platform_info(o);
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
  if (s.host_issued_ops > 0)
    std::cout << "host issue    " << units::format_time(s.host_issue_seconds) << " over " << s.host_issued_ops
              << " ops (their own figures: an eager framework's host time to issue them)\n";
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
  auto* cmd =
      app.add_subcommand("info", "Summarise a workload (ops, FLOPs, bytes, parameters, intensity by op "
                                 "kind, critical path) or a platform (devices, links, routes)");
  cmd->add_option("--workload", o->workload, "Graph file or builder spec such as bert-base:batch=8,seq=128");
  auto* platform = cmd->add_option("--platform", o->platform, "Platform file or preset name");
  cmd->add_flag("--routes", o->routes, "With --platform: list every pair's route, hop by hop")
      ->needs(platform);
  cmd->add_option("--seed", o->seed, "Seed for random builders")->capture_default_str();
  return [o] { return info(*o); };
}

HS_REGISTER_COMMAND(info, {"info", info_command})

} // namespace
} // namespace hs::cli
