#pragma once
// Workloads by name: `--workload FILE` loads a graph file, `--workload NAME:key=value,...` runs a builder.
#include "sim/graph.hpp"
#include "sim/registry.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hs {

// One parameter a builder reads: its key, its default or its choices ("fp32|fp16"), and a note.
struct WorkloadParameter {
  std::string key;
  std::string value;
  std::string note = "";
};

// Builder parameters as given on the command line, with typed accessors that name the bad key. `known` is
// the builder's parameter list: a given key outside it is refused before the builder runs (a typo must
// not wait for a large graph to be built), and a builder reading a key outside it is a programming error.
class WorkloadParams {
public:
  WorkloadParams(std::string builder, std::map<std::string, std::string> values, std::uint64_t seed,
                 const std::vector<WorkloadParameter>& known);

  double number(const std::string& key, double fallback, double min, double max);
  long long integer(const std::string& key, long long fallback, long long min, long long max);
  std::string text(const std::string& key, const std::string& fallback,
                   const std::vector<std::string>& allowed);
  // A size with its unit ("64MiB", "1.5GB"; a plain number is bytes), positive and finite.
  double bytes(const std::string& key, double fallback);
  // A comma-separated list of distinct, non-empty names ("devices=P1,P2,P3").
  std::vector<std::string> names(const std::string& key, const std::string& fallback);
  std::uint64_t seed() {
    return static_cast<std::uint64_t>(integer("seed", static_cast<long long>(seed_), 0, (1LL << 62)));
  }
  // Gives `key` the value `value` where the spec gave it none: a default that depends on another key.
  void default_to(const std::string& key, const std::string& value) { values_.emplace(key, value); }
  // Throws if any key was never read (a typo such as "bacth=8").
  void expect_all_used() const;

private:
  const std::string* take(const std::string& key);
  std::string builder_;
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> used_;
  std::uint64_t seed_;
  const std::vector<WorkloadParameter>* known_;
};

struct WorkloadBuilder {
  std::string name;
  std::string description;
  std::vector<WorkloadParameter> parameters; // every key `build` may read
  std::function<Graph(WorkloadParams&)> build;
  // The model's shape where it has one ("layers", "hidden", "heads", "inner"): what a parallelism
  // transformation checks its degrees against.
  std::map<std::string, double> architecture = {};

  // One line for `heterosim workloads`: "ops=1000 alpha=1.0 ccr=1.0 (note) ...".
  std::string parameter_line() const;
};

Registry<WorkloadBuilder>& workload_builders();

// Graph files other than the JSON format, by extension (".dot", ".onnx"): importers register here.
struct WorkloadFileFormat {
  std::string extension; // with the dot, lower case
  std::string description;
  std::function<Graph(const std::string& path)> load;
  const std::string& name() const { return extension; } // its key in the registry
};
Registry<WorkloadFileFormat>& workload_file_formats();

// A file path or a builder spec ("random:ops=1000,seed=3"); `seed` is the default for builders' seed.
Graph load_workload(const std::string& spec_or_path, std::uint64_t seed = 0);

} // namespace hs

#define HS_REGISTER_WORKLOAD_FILE_FORMAT(id, ...)                                                            \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_workload_format_##id = ::hs::workload_file_formats().add(__VA_ARGS__);      \
  }

#define HS_REGISTER_WORKLOAD(id, ...)                                                                        \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_workload_##id = ::hs::workload_builders().add(__VA_ARGS__);                 \
  }
