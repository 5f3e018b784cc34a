#include "cli/parallel_option.hpp"

#include "sim/error.hpp"
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

std::vector<std::string> split_names(const std::string& v) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= v.size()) {
    const auto comma = v.find(',', pos);
    out.push_back(v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

int bucket_count(const Graph& g) {
  int n = 0;
  for (const auto& op : g.ops)
    if (op.name.rfind("r0/grad_bucket", 0) == 0) ++n;
  return n;
}

} // namespace

ParallelSetup parse_parallel(const std::string& text, const Platform& platform, const std::string& workload) {
  ParallelSetup s;
  s.text = text;
  auto values = parse_key_values("--parallel", text);
  for (const auto& [key, v] : values) {
    if (key == "dp") {
      s.data_parallel = positive_integer(key, v);
    } else if (key == "bucket") {
      s.dp.bucket_bytes = units::parse(v, units::Quantity::Bytes);
      if (!(s.dp.bucket_bytes > 0)) throw InputError("--parallel", key, "must be a positive size");
    } else if (key == "algo") {
      if (v != "ring" && v != "tree" && v != "hierarchical")
        throw InputError("--parallel", key, "'" + v + "' is not one of: ring, tree, hierarchical");
      s.dp.algorithm = collectives::algorithm_named(v);
    } else if (key == "group") {
      s.dp.group_size = positive_integer(key, v);
    } else if (key == "batch") {
      s.samples_per_replica = positive_integer(key, v);
    } else if (key == "devices") {
      s.dp.devices = split_names(v);
    } else {
      throw InputError("--parallel", key, "unknown key (known: dp, bucket, algo, group, batch, devices)");
    }
  }
  if (!values.count("dp")) throw InputError("--parallel", "dp", "missing: how many replicas (dp=N)");
  if (s.dp.devices.empty()) {
    for (const auto& d : platform.devices)
      if (d.kind == "gpu" && static_cast<int>(s.dp.devices.size()) < s.data_parallel)
        s.dp.devices.push_back(d.name);
  }
  if (static_cast<int>(s.dp.devices.size()) != s.data_parallel)
    throw InputError(
        "--parallel", "dp",
        "dp=" + std::to_string(s.data_parallel) + " needs as many devices, and " +
            std::to_string(s.dp.devices.size()) +
            (values.count("devices") ? " are listed" : " GPUs are on platform '" + platform.name + "'"));
  for (const auto& name : s.dp.devices)
    if (!platform.find_device(name))
      throw InputError("--parallel", "devices",
                       "no device '" + name + "' on platform '" + platform.name + "'");
  if (s.dp.algorithm == collectives::Algorithm::Hierarchical &&
      (s.dp.group_size < 2 || s.data_parallel % s.dp.group_size != 0 || s.dp.group_size == s.data_parallel))
    throw InputError("--parallel", "group",
                     "hierarchical all-reduce needs group=G with G >= 2 dividing dp=" +
                         std::to_string(s.data_parallel) + " into 2 or more groups");
  if (!values.count("batch")) {
    const auto colon = workload.find(':');
    if (colon != std::string::npos) {
      const auto spec = parse_key_values(workload, workload.substr(colon + 1));
      if (auto it = spec.find("batch"); it != spec.end())
        s.samples_per_replica = positive_integer("batch", it->second);
    }
  }
  return s;
}

Graph apply_parallel(const Graph& step, const ParallelSetup& s) {
  if (s.data_parallel == 1) return step;
  try {
    return data_parallel(step, s.dp);
  } catch (const std::invalid_argument& e) {
    throw InputError("--parallel", s.text, e.what());
  }
}

std::string parallel_summary(const ParallelSetup& s, const Graph& transformed, double step) {
  char line[400];
  std::snprintf(
      line, sizeof line,
      "parallel  data parallel x%d (%s..%s), %s all-reduce of the gradients in %d buckets of >= %s\n"
      "          step %s, %.1f samples/s (%g per replica)",
      s.data_parallel, s.dp.devices.front().c_str(), s.dp.devices.back().c_str(),
      collectives::algorithm_name(s.dp.algorithm).c_str(), bucket_count(transformed),
      units::format_bytes(s.dp.bucket_bytes).c_str(), units::format_time(step).c_str(),
      s.data_parallel * s.samples_per_replica / step, s.samples_per_replica);
  return line;
}

nlohmann::ordered_json parallel_json(const ParallelSetup& s, const Graph& transformed, double step) {
  return {{"spec", s.text},
          {"data_parallel", s.data_parallel},
          {"devices", s.dp.devices},
          {"all_reduce", collectives::algorithm_name(s.dp.algorithm)},
          {"gradient_buckets", bucket_count(transformed)},
          {"bucket_bytes", s.dp.bucket_bytes},
          {"samples_per_replica", s.samples_per_replica},
          {"step_s", step},
          {"samples_per_s", s.data_parallel * s.samples_per_replica / step}};
}

} // namespace hs::cli
