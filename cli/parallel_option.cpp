#include "cli/parallel_option.hpp"

#include "cli/folded_rings.hpp"
#include "sim/error.hpp"
#include "sim/key_values.hpp"
#include "sim/memory.hpp"
#include "sim/training_metrics.hpp"
#include "sim/units.hpp"
#include "workloads/workload_registry.hpp"

#include <charconv>
#include <cstdio>

namespace hs::cli {

namespace {

int positive_integer(const std::string& key, const std::string& v) {
  int x = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || ptr != v.data() + v.size() || x < 1)
    throw InputError("--parallel", key, "'" + v + "' is not a positive integer");
  return x;
}

int bucket_count(const Graph& g) {
  int n = 0;
  for (const auto& op : g.ops)
    if (op.name.rfind("r0/grad_bucket", 0) == 0 && op.name.find('.') == std::string::npos) ++n;
  return n;
}

} // namespace

namespace {

void set_key(ParallelSetup& s, const std::string& key, const std::string& v) {
  const auto one_of = [&](std::initializer_list<const char*> allowed) {
    std::string list;
    for (const char* a : allowed) {
      if (v == a) return;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    throw InputError("--parallel", key, "'" + v + "' is not one of: " + list);
  };
  if (key == "dp") {
    s.data_parallel = positive_integer(key, v);
  } else if (key == "pp") {
    s.pipeline_stages = positive_integer(key, v);
  } else if (key == "tp") {
    s.tensor_parallel = positive_integer(key, v);
  } else if (key == "replicas") {
    s.simulated_replicas = positive_integer(key, v);
  } else if (key == "bucket") {
    s.dp.bucket_bytes = units::parse(v, units::Quantity::Bytes);
    if (!(s.dp.bucket_bytes > 0)) throw InputError("--parallel", key, "must be a positive size");
  } else if (key == "algo") {
    one_of({"ring", "tree", "hierarchical"});
    s.dp.algorithm = collectives::algorithm_named(v);
  } else if (key == "group") {
    s.dp.group_size = positive_integer(key, v);
  } else if (key == "ring_steps") {
    s.dp.max_ring_steps = v == "all" ? 0 : positive_integer(key, v);
  } else if (key == "channels") {
    s.dp.channels = positive_integer(key, v);
  } else if (key == "vocab") {
    one_of({"replicated", "split"});
    s.tp.split_vocabulary = v == "split";
  } else if (key == "overlap") {
    one_of({"on", "off"});
    s.dp.overlap = v == "on";
  } else if (key == "microbatches") {
    s.pp.microbatches = positive_integer(key, v);
  } else if (key == "cut") {
    one_of({"flops", "layers"});
    s.pp.equal_layers = v == "layers";
  } else if (key == "interleave") {
    s.pp.interleave = positive_integer(key, v);
  } else if (key == "schedule") {
    one_of({"1f1b", "gpipe"});
    s.pp.schedule = v == "gpipe" ? PipelineSchedule::GPipe : PipelineSchedule::OneForwardOneBackward;
  } else if (key == "zero") {
    one_of({"0", "1", "2", "3"});
    s.dp.zero_stage = v[0] - '0';
  } else if (key == "batch") {
    s.samples_per_replica = positive_integer(key, v);
  } else if (key == "devices") {
    s.dp.devices = parse_name_list("--parallel", key, v);
  } else {
    throw InputError("--parallel", key,
                     "unknown key (known: dp, replicas, tp, pp, bucket, algo, group, ring_steps, channels, "
                     "overlap, vocab, zero, microbatches, schedule, interleave, cut, batch, devices)");
  }
}

// The devices given, or the platform's first GPUs, one per replica or stage.
std::vector<std::string> devices_for(const ParallelSetup& s, bool listed, const Platform& platform) {
  const std::string key = s.data_parallel > 1 ? "dp" : s.pipeline_stages > 1 ? "pp" : "tp";
  const int width = s.width();
  std::vector<std::string> devices = s.dp.devices;
  if (devices.empty())
    for (const auto& d : platform.devices)
      if (d.kind == "gpu" && static_cast<int>(devices.size()) < width) devices.push_back(d.name);
  if (static_cast<int>(devices.size()) != width)
    throw InputError("--parallel", key,
                     s.text + " needs " + std::to_string(width) + " devices, and " +
                         std::to_string(devices.size()) +
                         (listed ? " are listed" : " GPUs are on platform '" + platform.name + "'"));
  for (const auto& name : devices)
    if (!platform.find_device(name))
      throw InputError("--parallel", "devices",
                       "no device '" + name + "' on platform '" + platform.name + "'");
  return devices;
}

// Megatron's splits need the degree to divide the heads, the hidden size and the MLP's inner size.
void check_tensor_parallel(int t, const std::string& builder_name) {
  const auto* builder = workload_builders().find(builder_name);
  if (!builder || !builder->architecture.count("heads"))
    throw InputError("--parallel", "tp",
                     "tensor parallelism splits transformer layers: use a bert-* or gpt2-* builder");
  for (const char* dimension : {"heads", "hidden", "inner"}) {
    const auto size = static_cast<long long>(builder->architecture.at(dimension));
    if (size % t != 0)
      throw InputError(
          "--parallel", "tp",
          "tp=" + std::to_string(t) + " does not divide " + builder_name + "'s " + std::to_string(size) +
              " " +
              (std::string(dimension) == "heads" ? "attention heads" : std::string(dimension) + " size"));
  }
}

// The device whose memory peaks highest.
std::size_t fullest(const Report& r) {
  return static_cast<std::size_t>(std::max_element(r.memory.peak.begin(), r.memory.peak.end()) -
                                  r.memory.peak.begin());
}

// A hierarchical all-reduce's groups: whole nodes of the replicas, 2 or more, built and represented.
void check_groups(const ParallelSetup& s) {
  const int g = s.dp.group_size;
  if (g < 2 || s.data_parallel % g != 0 || g == s.data_parallel)
    throw InputError("--parallel", "group",
                     "hierarchical all-reduce needs group=G with G >= 2 dividing dp=" +
                         std::to_string(s.data_parallel) + " into 2 or more groups");
  if (s.replicas() % g != 0 || s.replicas() == g)
    throw InputError("--parallel", "replicas",
                     "a hierarchical all-reduce needs the replicas built in 2 or more whole groups of " +
                         std::to_string(g));
}

// replicas=R: R of the dp replicas built, the gradients' rings folded onto them.
void fold_replicas(ParallelSetup& s) {
  if (s.simulated_replicas < 2 || s.simulated_replicas > s.data_parallel)
    throw InputError("--parallel", "replicas",
                     "builds 2 or more of the dp=" + std::to_string(s.data_parallel) +
                         " data-parallel replicas (got " + std::to_string(s.simulated_replicas) + ")");
  if (s.dp.zero_stage > 0 || s.dp.channels > 1 || s.dp.algorithm == collectives::Algorithm::Tree)
    throw InputError("--parallel", "replicas",
                     "folds the gradients' rings onto the replicas built: algo=ring or hierarchical, no "
                     "zero, one channel");
  if (s.simulated_replicas < s.data_parallel) s.dp.represented_replicas = s.data_parallel;
}

} // namespace

ParallelSetup parse_parallel(const std::string& text, const Platform& platform, const std::string& workload) {
  ParallelSetup s;
  s.text = text;
  const auto values = parse_key_values("--parallel", text);
  for (const auto& [key, v] : values)
    set_key(s, key, v);
  if (values.count("dp") + values.count("pp") + values.count("tp") == 0)
    throw InputError("--parallel", "dp",
                     "give dp=N (data), tp=N (tensor) or pp=N (pipeline), or several of them");
  if (values.count("zero") && s.data_parallel < 2)
    throw InputError("--parallel", "zero",
                     "ZeRO shards the optimizer state across data-parallel replicas: give dp=N too");
  for (const char* key : {"schedule", "interleave", "cut"}) // micro-batches on one stage: accumulation
    if (values.count(key) && s.pipeline_stages < 2)
      throw InputError("--parallel", key, "is a pipeline's option: give pp=N (N >= 2) too");
  if (values.count("vocab") && s.tensor_parallel < 2)
    throw InputError("--parallel", "vocab",
                     "splits the vocabulary over tensor-parallel ranks: give tp=N too");
  if (values.count("replicas")) fold_replicas(s);
  if (values.count("overlap") && s.data_parallel < 2)
    throw InputError("--parallel", "overlap", "is the gradient all-reduce's option: give dp=N too");
  if (s.dp.channels > 1 && s.dp.algorithm != collectives::Algorithm::Ring)
    throw InputError("--parallel", "channels",
                     "NCCL's channels split ring collectives: give algo=ring (group=G for one rail per "
                     "channel across nodes)");
  if (s.dp.channels > 1 && s.dp.group_size > 0 && s.data_parallel % s.dp.group_size != 0)
    throw InputError("--parallel", "group",
                     "channels over groups need group=G dividing dp=" + std::to_string(s.data_parallel));
  if (s.dp.zero_stage >= 2 && s.pipeline_stages > 1) // DeepSpeed refuses it too
    throw InputError("--parallel", "zero",
                     "ZeRO-2 and -3 shard the gradients that a pipeline accumulates over its micro-batches: "
                     "use zero=1 with pp");
  // The graph accumulates whole gradients over the micro-batches before reducing them, so ZeRO-2's
  // sharded gradients would be reported at a size they do not have during the accumulation.
  if (s.dp.zero_stage >= 2 && s.pp.microbatches > 1)
    throw InputError("--parallel", "zero",
                     "ZeRO-2 and -3 with gradient accumulation are not modelled (whole gradients are "
                     "accumulated before the reduce-scatter): use zero=1 with microbatches");
  if (values.count("replicas") && values.count("devices"))
    throw InputError("--parallel", "replicas",
                     "builds the platform's first GPUs: devices= cannot be given too");
  s.dp.devices = devices_for(s, values.count("devices") > 0, platform);
  s.pp.devices.assign(s.dp.devices.begin(), s.dp.devices.begin() + s.inner());
  if (s.dp.algorithm == collectives::Algorithm::Hierarchical) check_groups(s);
  if (s.replicas() < s.data_parallel) check_folded_rings(s, platform);
  const auto colon = workload.find(':');
  const auto spec = colon == std::string::npos ? std::map<std::string, std::string>{}
                                               : parse_key_values(workload, workload.substr(colon + 1));
  if (auto it = spec.find("batch"); it != spec.end() && !values.count("batch"))
    s.samples_per_replica = positive_integer("batch", it->second);
  if (auto it = spec.find("seq"); it != spec.end()) {
    s.tokens_per_sample = positive_integer("seq", it->second);
  } else if (const auto* builder = workload_builders().find(workload.substr(0, colon))) {
    for (const auto& parameter : builder->parameters) // the builder's default sequence length
      if (parameter.key == "seq") s.tokens_per_sample = positive_integer("seq", parameter.value);
  }
  if (s.tensor_parallel > 1) check_tensor_parallel(s.tensor_parallel, workload.substr(0, colon));
  return s;
}

Graph apply_parallel(const Graph& step, const ParallelSetup& s) {
  try {
    MeshOptions mesh;
    mesh.devices = s.dp.devices;
    mesh.data = s.replicas();
    mesh.tensor = s.tensor_parallel;
    mesh.pipeline = s.pipeline_stages;
    mesh.pipeline_options = s.pp;
    // A tensor-parallel group sits in one node, so where the gradients' all-reduce is hierarchical (across
    // nodes) its own are rings.
    mesh.tensor_options = s.tp;
    mesh.tensor_options.algorithm = s.dp.algorithm == collectives::Algorithm::Hierarchical
                                        ? collectives::Algorithm::Ring
                                        : s.dp.algorithm;
    mesh.tensor_options.channels = s.dp.channels;
    mesh.data_options = s.dp;
    return mesh_parallel(step, mesh);
  } catch (const std::invalid_argument& e) {
    throw InputError("--parallel", s.text, e.what());
  }
}

// The first line of the summary: how the step was spread.
std::string layout_line(const ParallelSetup& s, const Graph& transformed) {
  char line[400];
  const std::string algorithm = collectives::algorithm_name(s.dp.algorithm);
  std::string out = "parallel ";
  if (s.data_parallel > 1) {
    const std::string zero = "ZeRO-" + std::to_string(s.dp.zero_stage) + ": ";
    const std::string how = s.dp.zero_stage == 0 ? algorithm + " all-reduce"
                            : s.dp.zero_stage == 3
                                ? zero + "weights all-gathered per use, ring reduce-scatter"
                                : zero + "ring reduce-scatter, then all-gather of the weights,";
    std::string extra;
    if (s.dp.channels > 1) extra.append(", ").append(std::to_string(s.dp.channels)).append(" channels");
    if (!s.dp.overlap) extra.append(", after the backward pass");
    if (s.replicas() < s.data_parallel)
      extra.append(", ").append(std::to_string(s.replicas())).append(" replicas simulated, the rings folded");
    std::snprintf(line, sizeof line, " data parallel x%d (%s of the gradients in %d buckets of >= %s%s)",
                  s.data_parallel, how.c_str(), bucket_count(transformed),
                  units::format_bytes(s.dp.bucket_bytes).c_str(), extra.c_str());
    out += line;
  }
  const bool accumulating = s.pipeline_stages == 1 && s.pp.microbatches > 1;
  if (accumulating)
    out.append(s.data_parallel > 1 ? " of" : "")
        .append(" " + std::to_string(s.pp.microbatches) + " micro-batches with gradient accumulation");
  if (s.pipeline_stages > 1) {
    std::snprintf(line, sizeof line, "%s pipeline of %d stages, %d micro-batches, %s schedule",
                  s.data_parallel > 1 ? " of a" : "", s.pipeline_stages, s.pp.microbatches,
                  s.pp.schedule == PipelineSchedule::GPipe ? "GPipe"
                  : s.pp.interleave > 1                    ? "interleaved 1F1B"
                                                           : "1F1B");
    out += line;
    if (s.pp.interleave > 1) out += ", " + std::to_string(s.pp.interleave) + " chunks per device";
    if (s.pp.equal_layers) out += ", the same number of layers in each";
  }
  if (s.tensor_parallel > 1) {
    std::snprintf(line, sizeof line, "%s tensor parallel x%d (Megatron-LM splits, %s all-reduces)",
                  s.pipeline_stages > 1 ? ", each stage"
                  : accumulating        ? ", each"
                  : s.data_parallel > 1 ? " of"
                                        : "",
                  s.tensor_parallel,
                  s.dp.algorithm == collectives::Algorithm::Hierarchical ? "ring" : algorithm.c_str());
    out += line;
    if (s.tp.split_vocabulary) out += ", vocabulary split";
  }
  if (s.devices().size() > 1) return out + ", on " + s.devices().front() + ".." + s.devices().back();
  return out + (accumulating ? ", on " : " none: the step pinned to ") + s.devices().front();
}

std::string parallel_summary(const ParallelSetup& s, const Report& report) {
  const double step = report.execution.makespan;
  char line[400];
  std::string out = layout_line(s, report.cost->graph());
  std::snprintf(line, sizeof line, "\n          step %s, %.1f samples/s (%g per %s)",
                units::format_time(step).c_str(), s.samples_per_step() / step, s.samples_per_replica,
                s.pipeline_stages > 1 || s.pp.microbatches > 1 ? "micro-batch" : "replica");
  out += line;
  if (s.tokens_per_sample > 0) {
    std::snprintf(line, sizeof line, ", %.0f tokens/s", s.samples_per_step() * s.tokens_per_sample / step);
    out += line;
  }
  const TrainingMetrics m = training_metrics(*report.plan, *report.cost, report.execution);
  std::snprintf(
      line, sizeof line,
      "\n          MFU %.1f%%, idle %.1f%% of the step per device (%s), communication %s per device, "
      "%s of it exposed",
      100 * m.mfu, 100 * m.idle_fraction, s.pipeline_stages > 1 ? "the bubble" : "mean",
      units::format_time(m.communication).c_str(), units::format_time(m.exposed).c_str());
  out += line;
  const std::size_t d = fullest(report);
  const MemoryBreakdown& at = report.memory.at_peak[d];
  std::snprintf(
      line, sizeof line,
      "\n          memory  %s peaks at %s: parameters %s, optimizer state %s, gradients %s, activations %s, "
      "workspace %s",
      report.cost->platform().devices[d].name.c_str(), units::format_bytes(report.memory.peak[d]).c_str(),
      units::format_bytes(at.parameters).c_str(), units::format_bytes(at.optimizer_state).c_str(),
      units::format_bytes(at.gradients).c_str(), units::format_bytes(at.activations).c_str(),
      units::format_bytes(at.workspace).c_str());
  return out + line;
}

nlohmann::ordered_json parallel_json(const ParallelSetup& s, const Report& report) {
  const double step = report.execution.makespan;
  nlohmann::ordered_json j = {{"spec", s.text},
                              {"devices", s.devices()},
                              {"data_parallel", s.data_parallel},
                              {"tensor_parallel", s.tensor_parallel},
                              {"pipeline_stages", s.pipeline_stages}};
  if (s.pipeline_stages > 1 || s.pp.microbatches > 1) {
    j["microbatches"] = s.pp.microbatches;
    j["schedule"] = s.pp.schedule == PipelineSchedule::GPipe ? "gpipe" : "1f1b";
    j["interleave"] = s.pp.interleave;
    j["cut"] = s.pp.equal_layers ? "layers" : "flops";
  }
  if (s.data_parallel > 1 || s.tensor_parallel > 1)
    j["all_reduce"] = collectives::algorithm_name(s.dp.algorithm);
  if (s.tp.split_vocabulary) j["vocabulary"] = "split";
  if (s.data_parallel > 1) {
    j["gradient_buckets"] = bucket_count(report.cost->graph());
    j["zero_stage"] = s.dp.zero_stage;
    j["bucket_bytes"] = s.dp.bucket_bytes;
    if (s.dp.channels > 1) j["channels"] = s.dp.channels;
    if (s.replicas() < s.data_parallel) j["simulated_replicas"] = s.replicas();
    if (!s.dp.overlap) j["overlap"] = false;
  }
  const TrainingMetrics m = training_metrics(*report.plan, *report.cost, report.execution);
  j["samples_per_replica"] = s.samples_per_replica;
  j["step_s"] = step;
  j["samples_per_s"] = s.samples_per_step() / step;
  if (s.tokens_per_sample > 0) j["tokens_per_s"] = s.samples_per_step() * s.tokens_per_sample / step;
  j["model_flops"] = m.model_flops;
  j["mfu"] = m.mfu;
  j["idle_fraction"] = m.idle_fraction;
  j["communication_s"] = m.communication;
  j["exposed_communication_s"] = m.exposed;
  const std::size_t d = fullest(report);
  const MemoryBreakdown& at = report.memory.at_peak[d];
  j["fullest_device"] = {{"device", report.cost->platform().devices[d].name},
                         {"peak_bytes", report.memory.peak[d]},
                         {"parameters", at.parameters},
                         {"optimizer_state", at.optimizer_state},
                         {"gradients", at.gradients},
                         {"activations", at.activations},
                         {"workspace", at.workspace}};
  return j;
}

} // namespace hs::cli
