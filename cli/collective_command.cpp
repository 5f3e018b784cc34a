// `heterosim collective`: one collective over a range of sizes, replayed on the platform's links, printed
// as nccl-tests prints it (size, count, time, algorithm bandwidth = size / time, bus bandwidth = algbw x
// the collective's factor), with the contention-aware evaluator's time beside it. Writes collective.csv.
#include "cli/commands.hpp"
#include "policies/policy_runner.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/platform.hpp"
#include "sim/units.hpp"
#include "workloads/collectives.hpp"
#include "workloads/layers.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace hs::cli {
namespace {

struct CollectiveOptions {
  std::string platform = "multi-gpu-node";
  std::string op = "all-reduce";
  std::string algorithm;            // empty: direct for all-to-all, ring otherwise
  std::vector<std::string> devices; // empty: every GPU of the platform
  std::string min_bytes = "1MiB", max_bytes = "1GiB";
  double factor = 2.0;
  int group = 0;
  int channels = 1;
  std::string precision = "fp32";
  std::string engine = "simgrid";
  std::string out;
  bool force = false;
  bool quiet = false;
};

collectives::CollectiveSpec spec_of(const CollectiveOptions& o, const Platform& p) {
  namespace c = collectives;
  c::CollectiveSpec spec;
  spec.op = c::collective_named(o.op);
  spec.algorithm = c::algorithm_named(!o.algorithm.empty()                 ? o.algorithm
                                      : spec.op == c::Collective::AllToAll ? "direct"
                                                                           : "ring");
  spec.devices = o.devices;
  spec.group_size = o.group;
  spec.channels = o.channels;
  spec.precision = o.precision;
  if (spec.devices.empty())
    for (const auto& d : p.devices)
      if (d.kind == "gpu") spec.devices.push_back(d.name);
  for (const auto& name : spec.devices)
    if (!p.find_device(name)) throw InputError(p.file, "devices", "no device '" + name + "' (--devices)");
  return spec;
}

// Seconds of the collective of `spec` in the engine, and in the contention-aware evaluator.
std::pair<double, double> time_collective(const collectives::CollectiveSpec& spec, const Platform& p,
                                          const std::string& engine) {
  GraphBuilder b(collectives::collective_name(spec.op), "collective");
  collectives::append_collective(b, spec, {});
  const Graph g = std::move(b).build();
  const CostModel cost(g, p);
  const PolicyOutcome r = execute_policy("heft", PolicyContext{cost}, Scenario{}, engine);
  double evaluated = r.execution.makespan;
  for (const auto& f : r.cross_check)
    if (f.engine == "evaluator") evaluated = f.makespan;
  return {r.execution.makespan, evaluated};
}

int collective(const CollectiveOptions& o) {
  namespace c = collectives;
  const Platform p = load_platform(o.platform);
  c::CollectiveSpec spec = spec_of(o, p);
  const double lo = units::parse(o.min_bytes, units::Quantity::Bytes);
  const double hi = units::parse(o.max_bytes, units::Quantity::Bytes);
  if (!(lo > 0) || !(hi >= lo))
    throw std::invalid_argument("--min-bytes must be positive and at most --max-bytes");
  if (!(o.factor > 1)) throw std::invalid_argument("--factor must be more than 1");
  if (!o.out.empty() && std::filesystem::exists(o.out + "/collective.csv") && !o.force)
    throw std::invalid_argument(o.out + "/collective.csv: already exists; pass --force to overwrite");

  const int n = static_cast<int>(spec.devices.size());
  const double factor = c::bus_bandwidth_factor(spec.op, n);
  const auto print = [&](const char* format, auto... args) {
    if (!o.quiet) std::printf(format, args...);
  };
  print("# %s, %s, %d ranks on %s (%s); busbw = algbw x %.4f (nccl-tests)\n", o.op.c_str(),
        c::algorithm_name(spec.algorithm).c_str(), n, p.name.c_str(), o.engine.c_str(), factor);
  print("%14s %12s %6s %12s %12s %10s %10s\n", "size (B)", "count", "type", "time (us)", "eval (us)",
        "algbw GB/s", "busbw GB/s");
  std::string csv =
      "bytes,count,type,ranks,op,algorithm,engine,seconds,evaluator_seconds,algbw_gbps,busbw_gbps\n";
  for (double bytes = lo; bytes <= hi * (1 + 1e-12); bytes *= o.factor) {
    spec.bytes = bytes;
    const auto [t, evaluated] = time_collective(spec, p, o.engine);
    const double algbw = bytes / t / 1e9;
    const double count = bytes / layers::element_bytes(o.precision);
    print("%14.0f %12.0f %6s %12.2f %12.2f %10.2f %10.2f\n", bytes, count, o.precision.c_str(), t * 1e6,
          evaluated * 1e6, algbw, algbw * factor);
    char line[320];
    std::snprintf(line, sizeof line, "%.0f,%.0f,%s,%d,%s,%s,%s,%.9g,%.9g,%.6g,%.6g\n", bytes, count,
                  o.precision.c_str(), n, o.op.c_str(), c::algorithm_name(spec.algorithm).c_str(),
                  o.engine.c_str(), t, evaluated, algbw, algbw * factor);
    csv += line;
  }
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    write_file_atomically(o.out + "/collective.csv", csv, o.force);
    print("wrote %s/collective.csv\n", o.out.c_str());
  }
  return 0;
}

Action collective_command(CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  auto* cmd = app.add_subcommand(
      "collective",
      "Time one collective over a range of sizes on a platform's links, as nccl-tests reports it");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->capture_default_str();
  cmd->add_option("--op", o->op, "all-reduce, all-gather, reduce-scatter, broadcast or all-to-all")
      ->capture_default_str();
  cmd->add_option(
      "--algo", o->algorithm,
      "ring, tree, hierarchical (all-reduce) or direct (all-to-all); default: direct for all-to-all, "
      "ring otherwise");
  cmd->add_option("--devices", o->devices, "Ranks in order (default: every GPU of the platform)")
      ->delimiter(',');
  cmd->add_option("--group", o->group, "Hierarchical, or ring with --channels: ranks per node");
  cmd->add_option("--channels", o->channels,
                  "Ring: split the buffer over this many rings at once, each crossing nodes on its own NICs")
      ->capture_default_str();
  cmd->add_option("--min-bytes,-b", o->min_bytes, "Smallest size")->capture_default_str();
  cmd->add_option("--max-bytes,-e", o->max_bytes, "Largest size")->capture_default_str();
  cmd->add_option("--factor,-f", o->factor, "Size multiplier between rows")->capture_default_str();
  cmd->add_option("--precision", o->precision, "Element type")->capture_default_str();
  cmd->add_option("--engine", o->engine, "simgrid, evaluator or analytic")->capture_default_str();
  cmd->add_option("--out", o->out, "Folder for collective.csv (none: print only)");
  cmd->add_flag("--force", o->force, "Overwrite collective.csv");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  return [o] { return collective(*o); };
}

HS_REGISTER_COMMAND(collective, {"collective", collective_command})

} // namespace
} // namespace hs::cli
