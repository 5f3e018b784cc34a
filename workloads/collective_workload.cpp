// One collective alone, as a workload: `collective:op=all-reduce,bytes=1GiB,devices=gpu0,gpu1,...`. Every
// op is pinned, so any policy gives the same placement and the replay times the collective itself.
#include "sim/error.hpp"
#include "workloads/collectives.hpp"
#include "workloads/workload_registry.hpp"

#include <stdexcept>

namespace {

hs::Graph collective_workload(hs::WorkloadParams& p) {
  namespace c = hs::collectives;
  c::CollectiveSpec s;
  const std::string op =
      p.text("op", "all-reduce", {"all-reduce", "all-gather", "reduce-scatter", "broadcast", "all-to-all"});
  s.op = c::collective_named(op);
  const std::string fallback = s.op == c::Collective::AllToAll ? "direct" : "ring";
  s.algorithm = c::algorithm_named(p.text("algo", fallback, {"ring", "tree", "direct", "hierarchical"}));
  s.bytes = p.bytes("bytes", 64.0 * (1 << 20));
  s.devices = p.names("devices", "gpu0,gpu1,gpu2,gpu3,gpu4,gpu5,gpu6,gpu7");
  s.precision = p.text("precision", "fp32", {"fp32", "fp16", "bf16", "fp64", "int8"});
  s.chunks = static_cast<int>(p.integer("chunks", 0, 0, 1 << 16));
  s.group_size = static_cast<int>(p.integer("group", 0, 0, 1 << 20));
  s.name = op;
  hs::GraphBuilder b(op + "-" + c::algorithm_name(s.algorithm), "collective");
  try {
    c::append_collective(b, s, {});
  } catch (const std::invalid_argument& e) {
    throw hs::InputError("collective", "op", e.what());
  }
  return std::move(b).build();
}

} // namespace

HS_REGISTER_WORKLOAD(collective,
                     hs::WorkloadBuilder{
                         "collective",
                         "one collective over pinned ranks, as transfer steps on the platform's "
                         "links (nccl-tests' size conventions)",
                         {{"op", "all-reduce", "all-reduce|all-gather|reduce-scatter|broadcast|all-to-all"},
                          {"algo", "ring", "ring|tree|hierarchical (all-reduce)|direct (all-to-all)"},
                          {"bytes", "64MiB"},
                          {"devices", "gpu0,...,gpu7", "one rank per device, in ring order"},
                          {"group", "0", "hierarchical: ranks per node"},
                          {"chunks", "0", "broadcast: pipelined slices (0: one per rank)"},
                          {"precision", "fp32"}},
                         collective_workload})
