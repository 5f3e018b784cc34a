// The command line as a user meets it: errors that name the file and the place, a non-zero exit,
// byte-identical results for the same inputs and seed, and no silent overwrites.
#include "cli_support.hpp"
#include "test_support.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using hs::test::heterosim;

using hs::test::slurp;

fs::path scratch(const std::string& name) {
  return hs::test::scratch_dir("cli-test", name);
}

std::string write(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// A one-tenant serving file (bert-base at seq 16) with `tenant` as the rest of the tenant's fields.
std::string serving_file(const std::string& tenant, const std::string& top = "") {
  return R"({"format": "heterosim-serving", "version": 1, )" + top +
         R"("tenants": [{"name": "bert", "workload": "bert-base:seq=16", )" + tenant + "}]}";
}

} // namespace

TEST_CASE("run prints every metric and writes the report, the timeline and the trace") {
  const auto dir = scratch("run");
  const auto r =
      heterosim("run --platform hetero-server --workload random:ops=60 --policy heft --seed 2 --out " +
                (dir / "o").string());
  CHECK(r.exit_code == 0);
  for (const char* what : {"latency", "energy", "peak mem", "transfers", "SimGrid replay",
                           "contention-aware evaluator", "contention-free lower bound", "npu0", "fpga0"})
    CHECK_MESSAGE(r.output.find(what) != std::string::npos, what);
  for (const char* f : {"report.json", "timeline.csv", "trace.json"})
    CHECK(fs::file_size(dir / "o" / f) > 100);
  const auto report = nlohmann::json::parse(slurp(dir / "o" / "report.json"));
  CHECK(report["makespan_s"].get<double>() > 0);
  CHECK(report["energy"]["total_j"].get<double>() > 0);
  CHECK(report["devices"]["gpu0"].contains("peak_memory_bytes"));
  REQUIRE(report["cross_check"].size() == 2);
  CHECK(report["cross_check"][0]["engine"] == "evaluator");
  CHECK(report["cross_check"][1]["engine"] == "analytic");
  const auto trace = nlohmann::json::parse(slurp(dir / "o" / "trace.json"));
  CHECK(trace["traceEvents"].size() > 60);
}

TEST_CASE("run --parallel on one device pins the step there, whatever the policy would pick") {
  // On l4-server fastest-device takes the host CPU for BERT-large at batch 1 where the graph lets it
  // (device=any); dp=1 on gpu0 says the GPU.
  const auto dir = scratch("one-device");
  const auto r =
      heterosim("run --platform l4-server --workload bert-large:implementation=huggingface,device=any "
                "--parallel dp=1,devices=gpu0 --policy fastest-device --out " +
                (dir / "o").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("parallel  none: the step pinned to gpu0") != std::string::npos);
  const auto report = nlohmann::json::parse(slurp(dir / "o" / "report.json"));
  CHECK(report["devices"]["gpu0"]["ops"] == 416);
  CHECK(report["devices"]["gpu0"]["host_issue"]["figure"] == "ops"); // the eager graph's own figures
}

TEST_CASE("same inputs and seed give byte-identical results, another seed does not") {
  const auto dir = scratch("determinism");
  const std::string common = "run --platform multi-gpu-node --workload random:ops=80 --policy heft -q --out ";
  REQUIRE(heterosim(common + (dir / "a").string() + " --seed 5").exit_code == 0);
  REQUIRE(heterosim(common + (dir / "b").string() + " --seed 5").exit_code == 0);
  REQUIRE(heterosim(common + (dir / "c").string() + " --seed 6").exit_code == 0);
  for (const char* f : {"report.json", "timeline.csv", "trace.json", "gantt.svg", "report.html"})
    CHECK(slurp(dir / "a" / f) == slurp(dir / "b" / f));
  CHECK(slurp(dir / "a" / "report.json") != slurp(dir / "c" / "report.json"));
}

TEST_CASE("results are never overwritten without --force") {
  const auto dir = scratch("overwrite");
  const std::string cmd =
      "run --platform workstation --workload random:ops=20 -q --out " + (dir / "o").string();
  REQUIRE(heterosim(cmd).exit_code == 0);
  const auto before = slurp(dir / "o" / "report.json");
  const auto again = heterosim(cmd + " --seed 9");
  CHECK(again.exit_code != 0);
  CHECK(again.output.find("already exists") != std::string::npos);
  CHECK(slurp(dir / "o" / "report.json") == before);
  CHECK(heterosim(cmd + " --seed 9 --force").exit_code == 0);
  CHECK(slurp(dir / "o" / "report.json") != before);
}

TEST_CASE("each kind of bad input gets a clear error naming the file and the place, and a non-zero exit") {
  const auto dir = scratch("bad");
  const auto out = " -q --out " + (dir / "o").string();
  struct Case {
    std::string args;
    std::string expected;
  };
  const std::string graph_head = R"({"format": "heterosim-graph", "version": 1, "ops": [)";
  const std::vector<Case> cases = {
      {"run --platform workstation --workload " +
           write(dir, "malformed.json", "{\"version\": 1, \"ops\": [\n{\"name\": \"a\",}\n]}"),
       "malformed.json: line 2"},
      {"run --platform workstation --workload " +
           write(dir, "cycle.json", graph_head + R"({"name": "a"}, {"name": "b"}], "tensors": [
         {"producer": "a", "consumers": ["b"]}, {"producer": "b", "consumers": ["a"]}]})"),
       "cycle.json: ops: the graph has a cycle: a -> b -> a"},
      {"run --platform workstation --workload " +
           write(dir, "negative.json", graph_head + R"({"name": "a", "bytes_read": -1}]})"),
       "negative.json: ops[0].bytes_read: must not be negative"},
      {"run --platform workstation --workload " +
           write(dir, "unknown_op.json",
                 graph_head + R"({"name": "a"}], "tensors": [{"producer": "a", "consumers": ["b"]}]})"),
       "unknown_op.json: tensors[0].consumers[0]: unknown op 'b'"},
      {"run --platform no-such-platform --workload random:ops=5", "no-such-platform: no such file"},
      {"run --platform workstation --workload random:ops=5 --policy magic", "unknown policy 'magic'"},
      // A near miss is named; a name meant as a file is a missing file, not an unknown builder or preset.
      {"run --platform workstatoin --workload random:ops=5", "(did you mean 'workstation'?)"},
      {"run --platform workstation --workload randmo:ops=5", "(did you mean 'random'?)"},
      {"run --platform workstation --workload random:ops=5 --policy hetf", "(did you mean 'heft'?)"},
      {"run --platform workstation --workload " + (dir / "absent.json").string(),
       "absent.json: no such file"},
      {"run --platform " + (dir / "absent-platform.json").string() + " --workload random:ops=5",
       "absent-platform.json: no such file"},
      {"run --platform workstation --workload random:opz=5", "random: opz: unknown parameter"},
      {"run --platform workstation --workload random:ops=-5", "random: ops: must be between"},
      {"run --platform workstation --workload " +
           write(dir, "nodevice.json",
                 graph_head + R"({"name": "a", "kind": "gemm", "allowed_kinds": ["quantum"]}]})"),
       "no device can run op 'a'"},
      {"run --platform workstation --workload " +
           write(dir, "pinned.json",
                 graph_head + R"({"name": "a", "kind": "gemm", "allowed_devices": ["gpu9"]}]})"),
       "op 'a' is pinned to gpu9, not 'cpu0'"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=9",
       "--parallel: dp: dp=9 needs 9 devices, and 8 GPUs are on platform 'multi-gpu-node'"},
      {"run --platform multi-gpu-node --workload bert-base --parallel dp=2", "no optimizer op"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,sp=2",
       "--parallel: sp: unknown key"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel "
       "dp=4,algo=hierarchical,group=3",
       "--parallel: group: hierarchical all-reduce needs group=G"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,pp=2,zero=2",
       "--parallel: zero: ZeRO-2 and -3 shard the gradients that a pipeline accumulates"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,zero=4",
       "--parallel: zero: '4' is not one of: 0, 1, 2, 3"},
      {"collective --op all-gather --algo tree", "all-gather has no tree algorithm"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,devices=gpu0,gpu0",
       "--parallel: devices: 'gpu0' listed twice"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "dp=2,tp=2,pp=4",
       "--parallel: dp: dp=2,tp=2,pp=4 needs 16 devices, and 8 GPUs are on platform 'multi-gpu-node'"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "tp=2,pp=2,devices=gpu0,gpu1,gpu2",
       "--parallel: pp: tp=2,pp=2,devices=gpu0,gpu1,gpu2 needs 4 devices, and 3 are listed"},
      {"run --platform dgx-a100-cluster:nodes=2 --workload bert-base:mode=training,heads=fused --parallel "
       "tp=5,pp=2",
       "--parallel: tp: tp=5 does not divide bert-base's 12 attention heads"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "dp=2,tp=2,pp=2,microbatches=0",
       "--parallel: microbatches: '0' is not a positive integer"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "tp=2,schedule=gpipe",
       "--parallel: schedule: is a pipeline's option"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel "
       "dp=2,zero=2,microbatches=2",
       "--parallel: zero: ZeRO-2 and -3 with gradient accumulation are not modelled"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,vocab=split",
       "--parallel: vocab: splits the vocabulary over tensor-parallel ranks: give tp=N too"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=8,replicas=1",
       "--parallel: replicas: builds 2 or more of the dp=8 data-parallel replicas (got 1)"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=4,replicas=8",
       "--parallel: replicas: builds 2 or more of the dp=4 data-parallel replicas (got 8)"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=8,replicas=2,zero=1",
       "--parallel: replicas: folds the gradients' rings onto the replicas built: algo=ring or hierarchical"},
      {"run --platform dgx-a100-cluster:nodes=2 --workload bert-base:mode=training --parallel "
       "dp=32,replicas=12,algo=hierarchical,group=8",
       "--parallel: replicas: a hierarchical all-reduce needs the replicas built in 2 or more whole groups "
       "of 8"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=64,replicas=16",
       "--parallel: dp: dp=64,replicas=16 needs 16 devices, and 8 GPUs are on platform 'multi-gpu-node'"},
      {"run --platform dgx-a100-cluster:nodes=4 --workload gpt2-small:mode=training --parallel "
       "dp=32,replicas=2",
       "--parallel: replicas: a folded ring stands for the whole ring only where its hops are alike, and "
       "dp=32's rings on 'dgx-a100-cluster' have 2 kinds"},
      {"run --platform dgx-a100-cluster:nodes=2 --workload gpt2-small:mode=training --parallel "
       "dp=32,replicas=16,algo=hierarchical,group=8",
       "--parallel: replicas: the fold is checked against the whole run's rings: platform 'dgx-a100-cluster' "
       "needs 32 GPUs for dp=32 (it has 16)"},
      {"run --platform multi-gpu-node --workload gpt2-small:mode=training --parallel "
       "dp=8,replicas=2,devices=gpu0,gpu1",
       "--parallel: replicas: builds the platform's first GPUs: devices= cannot be given too"},
      {"run --platform multi-gpu-node --workload gpt2-small:mode=training,optimizer=megatron",
       "gpt2-small: optimizer: optimizer=megatron is Megatron-LM's fp16/bf16 optimizer"},
      {"run --platform multi-gpu-node --workload gpt2-small:mode=training,loss=fp32",
       "gpt2-small: loss: 'fp32' is not one of"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "tp=2,vocab=half",
       "--parallel: vocab: 'half' is not one of: replicated, split"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel tp=2,overlap=off",
       "--parallel: overlap: is the gradient all-reduce's option: give dp=N too"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,overlap=later",
       "--parallel: overlap: 'later' is not one of: on, off"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel "
       "dp=2,algo=tree,channels=2",
       "--parallel: channels: NCCL's channels split ring collectives"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel dp=2,channels=0",
       "--parallel: channels: '0' is not a positive integer"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel "
       "tp=2,pp=2,microbatches=3,interleave=2",
       "interleaved 1F1B needs the micro-batches (3) to be a multiple of the stages (2)"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training,heads=fused --parallel dp=4,tp=4",
       "--parallel: dp: dp=4,tp=4 needs 16 devices, and 8 GPUs are on platform 'multi-gpu-node'"},
      {"run --platform multi-gpu-node --workload bert-base --parallel pp=2", "no backward pass"},
      {"run --platform multi-gpu-node --workload bert-base:heads=fused --parallel tp=5",
       "--parallel: tp: tp=5 does not divide bert-base's 12 attention heads"},
      {"run --platform multi-gpu-node --workload resnet50 --parallel tp=2",
       "--parallel: tp: tensor parallelism splits transformer layers"},
      {"run --platform multi-gpu-node --workload bert-base:mode=training --parallel pp=2,schedule=zb",
       "--parallel: schedule: 'zb' is not one of: 1f1b, gpipe"},
      {"run --platform workstation --workload " +
           write(dir, "precision.json", graph_head + R"({"name": "a", "precision": "fp4"}]})"),
       "has no fp4 throughput"},
      {"run --platform workstation --workload " +
           write(dir, "huge.json", graph_head + R"({"name": "a", "params": "900GB"}]})"),
       "memory over capacity"},
      {"run --platform " +
           write(
               dir, "platform.json",
               R"({"format": "heterosim-platform", "version": 1, "name": "p", "devices": [{"name": "d", "kind": "gpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "1GBps", "capacity": "-1GB"}, "power": {"idle": 1, "busy": 2}}]})") +
           " --workload random:ops=5",
       "platform.json: devices[0].memory.capacity: must not be negative"},
      {"run --platform workstation --workload random:ops=5 --engine quantum", "--engine"},
      {"serve --platform hetero-server --config " +
           write(dir, "serving-rate.json",
                 serving_file(R"("arrival": {"process": "poisson", "rate": 0}, "slo": "1s")")),
       "serving-rate.json: tenants[0].arrival.rate: requests per second must be above 0"},
      {"serve --platform hetero-server --config " +
           write(dir, "serving-slo.json",
                 serving_file(R"("arrival": {"process": "poisson", "rate": 5}, "slo": "soon")")),
       "serving-slo.json: tenants[0].slo"},
      {"serve --platform hetero-server --config " +
           write(
               dir, "serving-device.json",
               serving_file(
                   R"("arrival": {"process": "poisson", "rate": 5}, "slo": "1s", "placement": {"devices": ["gpu7"]})")),
       "serving-device.json: tenants[0].placement.devices: no device 'gpu7'"},
      {"serve --platform hetero-server --config " +
           write(dir, "serving-trace.json",
                 serving_file(R"("arrival": {"process": "trace"}, "slo": "1s")",
                              R"("trace": "trace-unknown.csv", )")) +
           (write(dir, "trace-unknown.csv", "time,tenant\n0,bert\n0.1,gpt\n"), ""),
       "trace-unknown.csv: line 3: tenant: unknown tenant 'gpt'"},
      {"serve --platform hetero-server --config " +
           write(dir, "serving-empty.json",
                 serving_file(R"("arrival": {"process": "trace"}, "slo": "1s")",
                              R"("trace": "trace-empty.csv", )")) +
           (write(dir, "trace-empty.csv", "time,tenant\n"), ""),
       "trace-empty.csv: the trace has a header but no request"},
      {"serve --platform hetero-server --scheduler lottery --config " +
           write(dir, "serving-ok.json",
                 serving_file(R"("arrival": {"process": "poisson", "rate": 5}, "slo": "1s")")),
       "--scheduler"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = heterosim(c.args + out + " --force");
    CHECK(r.exit_code != 0);
    CHECK_MESSAGE(r.output.find(c.expected) != std::string::npos, r.output);
    CHECK(r.output.find("Segmentation") == std::string::npos);
  }
}

TEST_CASE("listing commands print one line per entry") {
  const auto policies = heterosim("policies");
  CHECK(policies.exit_code == 0);
  CHECK(policies.output.find("heft\t") != std::string::npos);
  CHECK(policies.output.find("fastest-device\t") != std::string::npos);
  const auto platforms = heterosim("platforms");
  CHECK(platforms.output.find("hetero-server\t") != std::string::npos);
  CHECK(heterosim("workloads").output.find("random\t") != std::string::npos);
  CHECK(heterosim("run --help").output.find("--platform") != std::string::npos);
}
