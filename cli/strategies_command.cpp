// `heterosim strategies`: for a training workload, a platform and a GPU count, every way to spread the step
// that `run --parallel` knows (every data x tensor x pipeline mesh, over micro-batch counts),
// scored by the contention-aware evaluator, refused when a device's memory overflows, ranked by samples/s;
// the best few are replayed by SimGrid. Writes strategies.csv.
#include "cli/commands.hpp"
#include "cli/parallel_option.hpp"
#include "policies/policy_runner.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/memory.hpp"
#include "sim/units.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace hs::cli {
namespace {

struct StrategiesOptions {
  std::string platform = "multi-gpu-node";
  std::string workload;
  int gpus = 8;
  std::vector<int> microbatches = {4, 8};
  std::vector<int> interleave = {1};
  std::vector<int> zero = {0};
  int global_batch = 0;      // 0: each layout's micro-batches from `microbatches`
  int replicas = 0;          // build at most this many data-parallel replicas, the rings folded (0: all)
  bool equal_layers = false; // pipelines cut as Megatron-LM does (`--parallel ...,cut=layers`)
  int top = 3;
  std::string out;
  bool force = false;
};

struct Candidate {
  std::string spec;
  double evaluated = 0, replayed = 0, samples_per_s = 0, peak = 0; // peak: the fullest device's bytes
  std::string refused;                                             // why it cannot run, or empty
};

// The --parallel specs whose degrees multiply to `gpus`: every dp x tp x pp, pipelines at each micro-batch
// count and each number of chunks per device (interleaved only where the micro-batches are a multiple of
// the stages, as the schedule needs). With a global batch G (samples per step, `batch` per micro-batch),
// every layout instead runs G / (dp x batch) micro-batches, as Megatron-LM derives them, so that all
// compare at the same G: a pipeline's, or gradient accumulation on one stage; a layout whose dp x batch
// does not divide G is listed as refused. Each layout with data parallelism is tried at every ZeRO stage of
// `zero` (stages 2 and 3 not with a pipeline, which `run` refuses). With `replicas`, a layout of more data-
// parallel replicas builds that many (`replicas=R`), except with ZeRO, whose shards a fold cannot stand for.
std::vector<Candidate> layouts(const StrategiesOptions& o, int batch) {
  const int gpus = o.gpus, global_batch = o.global_batch;
  std::vector<Candidate> out;
  int dp = 1, pp = 1;
  const auto add = [&](const std::string& spec, int m, int v) {
    for (int z : o.zero) {
      if (z > 0 && (dp < 2 || (z >= 2 && pp > 1))) continue;
      std::string full = spec;
      if (m > 1) full.append(",microbatches=").append(std::to_string(m));
      if (v > 1) full.append(",interleave=").append(std::to_string(v));
      if (z > 0) full.append(",zero=").append(std::to_string(z));
      if (z == 0 && o.replicas >= 2 && dp > o.replicas)
        full.append(",replicas=").append(std::to_string(o.replicas));
      if (o.equal_layers && pp > 1) full.append(",cut=layers");
      out.push_back(Candidate{full, 0, 0, 0, 0, ""});
    }
  };
  for (int tp = 1; tp <= gpus; ++tp)
    for (pp = 1; tp * pp <= gpus; ++pp) {
      if (gpus % (tp * pp) != 0) continue;
      dp = gpus / (tp * pp);
      std::string spec;
      for (const auto& [key, degree] : {std::pair{"dp", dp}, {"tp", tp}, {"pp", pp}})
        if (degree > 1)
          spec.append(spec.empty() ? "" : ",").append(key).append("=").append(std::to_string(degree));
      if (global_batch > 0) {
        if (global_batch % (dp * batch) != 0) {
          out.push_back(Candidate{spec, 0, 0, 0, 0, ""});
          out.back().refused = "global batch " + std::to_string(global_batch) +
                               " is not a multiple of dp x batch = " + std::to_string(dp * batch);
          continue;
        }
        const int m = global_batch / (dp * batch);
        for (int v : o.interleave)
          if (v == 1 || (pp > 1 && m % pp == 0)) add(spec, m, v);
        continue;
      }
      if (pp == 1) {
        add(spec, 1, 1);
        continue;
      }
      for (int m : o.microbatches)
        for (int v : o.interleave)
          if (v == 1 || m % pp == 0) add(spec, m, v);
    }
  return out;
}

Candidate score(const std::string& spec, const StrategiesOptions& o, const Platform& p, const Graph& step) {
  Candidate c;
  c.spec = spec;
  try {
    const ParallelSetup s = parse_parallel(spec, p, o.workload);
    const Graph g = apply_parallel(step, s);
    const CostModel cost(g, p);
    PolicyOutcome r = execute_policy("as-pinned", PolicyContext{cost}, Scenario{}, "evaluator");
    c.evaluated = r.execution.makespan;
    c.samples_per_s = s.samples_per_step() / c.evaluated;
    const MemoryUsage m = memory_usage(r.plan, cost, r.execution);
    c.peak = *std::max_element(m.peak.begin(), m.peak.end());
    if (const auto over = capacity_violations(m, p); !over.empty()) c.refused = "memory: " + over.front();
  } catch (const std::exception& e) {
    c.refused = e.what();
  }
  return c;
}

int strategies(const StrategiesOptions& o) {
  if (o.gpus < 2) throw std::invalid_argument("--gpus must be at least 2");
  const Platform p = load_platform(o.platform);
  if (!o.out.empty() && std::filesystem::exists(o.out + "/strategies.csv") && !o.force)
    throw InputError(o.out + "/strategies.csv", "", "already exists; pass --force to overwrite");
  const Graph step = load_workload(o.workload);
  // The workload's batch is the micro-batch's (parse_parallel reads it from the workload spec).
  const int batch =
      o.global_batch > 0 ? static_cast<int>(parse_parallel("dp=1", p, o.workload).samples_per_replica) : 1;
  std::vector<Candidate> all;
  for (auto& c : layouts(o, batch))
    all.push_back(c.refused.empty() ? score(c.spec, o, p, step) : c);
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return a.refused.empty() != b.refused.empty() ? a.refused.empty() : a.samples_per_s > b.samples_per_s;
  });
  for (int i = 0; i < std::min<int>(o.top, static_cast<int>(all.size())) &&
                  all[static_cast<std::size_t>(i)].refused.empty();
       ++i) {
    Candidate& c = all[static_cast<std::size_t>(i)];
    const ParallelSetup s = parse_parallel(c.spec, p, o.workload);
    const Graph g = apply_parallel(step, s);
    const CostModel cost(g, p);
    c.replayed = execute_policy("as-pinned", PolicyContext{cost}, Scenario{}, "simgrid").execution.makespan;
  }
  std::printf("%-46s %12s %12s %12s %12s  %s\n", "parallel", "evaluator", "samples/s", "SimGrid", "peak mem",
              "refused");
  std::string csv = "parallel,evaluator_step_s,samples_per_s,simgrid_step_s,peak_memory_bytes,refused\n";
  for (const auto& c : all) {
    const std::string replay = c.replayed > 0 ? units::format_time(c.replayed) : "";
    std::printf("%-46s %12s %12.1f %12s %12s  %s\n", c.spec.c_str(),
                c.evaluated > 0 ? units::format_time(c.evaluated).c_str() : "", c.samples_per_s,
                replay.c_str(), c.peak > 0 ? units::format_bytes(c.peak).c_str() : "", c.refused.c_str());
    char line[600];
    std::snprintf(line, sizeof line, "\"%s\",%.9g,%.9g,%.9g,%.0f,\"%s\"\n", c.spec.c_str(), c.evaluated,
                  c.samples_per_s, c.replayed, c.peak, c.refused.c_str());
    csv += line;
  }
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    write_file_atomically(o.out + "/strategies.csv", csv, o.force);
    std::printf("wrote %s/strategies.csv\n", o.out.c_str());
  }
  return 0;
}

Action strategies_command(CLI::App& app) {
  auto o = std::make_shared<StrategiesOptions>();
  auto* cmd =
      app.add_subcommand("strategies", "Rank the ways to spread a training step over N GPUs (data x tensor "
                                       "x pipeline parallelism) by samples/s under memory capacity");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->capture_default_str();
  cmd->add_option("--workload", o->workload,
                  "A training workload, such as bert-large:mode=training,heads=fused")
      ->required();
  cmd->add_option("--gpus", o->gpus, "GPUs to use (the platform's first)")->capture_default_str();
  auto* microbatches =
      cmd->add_option("--microbatches", o->microbatches, "Micro-batch counts to try for pipelines")
          ->delimiter(',');
  cmd->add_option("--global-batch", o->global_batch,
                  "Samples per step for every layout: each runs global / (dp x batch) micro-batches "
                  "(a pipeline's, or gradient accumulation)")
      ->check(CLI::PositiveNumber)
      ->excludes(microbatches);
  cmd->add_option("--interleave", o->interleave,
                  "Model chunks per device to try for pipelines (interleaved 1F1B above 1), such as 1,2")
      ->delimiter(',');
  cmd->add_option("--zero", o->zero,
                  "ZeRO stages to try for layouts with data parallelism, such as 0,1,3 (2 and 3 not with "
                  "pipelines)")
      ->delimiter(',')
      ->check(CLI::Range(0, 3));
  cmd->add_option("--replicas", o->replicas,
                  "Build at most R data-parallel replicas of each layout, the gradients' rings folded onto "
                  "them (run --parallel ...,replicas=R; layouts without ZeRO)")
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_flag("--cut-layers", o->equal_layers,
                "Cut pipelines as Megatron-LM does: the same number of layers per stage (recompute=full)");
  cmd->add_option("--top", o->top, "How many of the best to replay with SimGrid")->capture_default_str();
  cmd->add_option("--out", o->out, "Folder for strategies.csv (none: print only)");
  cmd->add_flag("--force", o->force, "Overwrite strategies.csv");
  return [o] { return strategies(*o); };
}

HS_REGISTER_COMMAND(strategies, {"strategies", strategies_command})

} // namespace
} // namespace hs::cli
