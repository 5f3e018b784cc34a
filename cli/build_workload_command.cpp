// `heterosim build-workload NAME --batch .. --seq .. --precision .. --mode .. [--out FILE]`: runs a builder
// and writes its graph file (format heterosim-graph), which `run` and `info` then read.
#include "cli/commands.hpp"
#include "sim/error.hpp"
#include "sim/graph_io.hpp"
#include "sim/json_input.hpp"
#include "sim/units.hpp"
#include "workloads/workload_registry.hpp"

#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct BuildOptions {
  std::string builder;
  std::string batch, seq, image, precision, mode;
  std::vector<std::string> settings; // key=value for the builder's other parameters
  std::string out;
  std::uint64_t seed = 0;
  bool force = false;
};

// The builder spec ("bert-base:batch=8,seq=128") from the named options, in a fixed order.
std::string spec_of(const BuildOptions& o) {
  std::vector<std::string> items;
  auto add = [&](const char* key, const std::string& v) {
    if (!v.empty()) items.push_back(std::string(key) + "=" + v);
  };
  add("batch", o.batch);
  add("seq", o.seq);
  add("image", o.image);
  add("precision", o.precision);
  add("mode", o.mode);
  for (const auto& s : o.settings) {
    if (s.find(',') != std::string::npos) throw InputError("--set", s, "one key=value per --set");
    items.push_back(s);
  }
  std::string spec = o.builder;
  for (std::size_t i = 0; i < items.size(); ++i)
    spec += (i == 0 ? ":" : ",") + items[i];
  return spec;
}

int build(const BuildOptions& o) {
  if (!workload_builders().find(o.builder))
    throw InputError(o.builder, "", "no workload builder of that name (see `heterosim workloads`)");
  const Graph g = load_workload(spec_of(o), o.seed);
  const std::string out = o.out.empty() ? g.name + ".json" : o.out;
  write_file_atomically(out, graph_to_json(g).dump(1) + "\n", o.force);
  std::cout << "wrote " << out << ": " << g.op_count() << " ops, " << units::format_flops(g.total_flops())
            << "\n";
  return 0;
}

Action build_workload_command(CLI::App& app) {
  auto o = std::make_shared<BuildOptions>();
  auto* cmd = app.add_subcommand("build-workload", "Run a workload builder and write its graph file");
  cmd->add_option("name", o->builder, "Builder name (see `heterosim workloads`)")->required();
  cmd->add_option("--batch", o->batch, "Batch size");
  cmd->add_option("--seq", o->seq, "Sequence length (BERT, GPT-2)");
  cmd->add_option("--image", o->image, "Image height and width (ResNet)");
  cmd->add_option("--precision", o->precision, "fp32, fp16, bf16 or int8 (inference)");
  cmd->add_option("--mode", o->mode, "inference or training");
  cmd->add_option("--set", o->settings,
                  "Any other builder parameter as key=value (repeatable), e.g. --set decode=16");
  cmd->add_option("--seed", o->seed, "Seed for random builders")->capture_default_str();
  cmd->add_option("--out", o->out, "Graph file to write (default: <graph name>.json)");
  cmd->add_flag("--force", o->force, "Overwrite an existing file");
  return [o] { return build(*o); };
}

const bool registered = register_command({"build-workload", build_workload_command});

} // namespace
} // namespace hs::cli
