#pragma once
// A sweep file (format "heterosim-sweep"): a base run and the axes of a grid over it. Every point of the
// grid is one `heterosim run`; cli/sweep_runner.hpp runs them, cli/sweep_table.hpp joins their reports.
//
//   {"format": "heterosim-sweep", "version": 1, "name": "bert-on-l4",
//    "base": {"platform": "hetero-server", "workload": "bert:layers=12", "policy": "heft"},
//    "axes": [{"name": "uplink", "path": "/links/pcie_switch_uplink/bandwidth", "values": ["16GBps",
//    "32GBps"]},
//             {"name": "policy", "values": ["heft", "fastest-device"]}],
//    "metrics": ["latency_s", "energy_j"],
//    "plots": [{"x": "uplink", "y": "latency_s", "series": "policy"}],
//    "baseline": {"axis": "policy", "value": "fastest-device"}}
#include "sim/json_input.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hs::cli {

struct SweepAxis {
  enum class Kind {
    Platform,          // "platform": preset names or files
    Workload,          // "workload": specs or files
    Policy,            // "policy"
    Engine,            // "engine"
    Seed,              // "seed"
    PlatformField,     // "path": one field of the platform, e.g. /links/pcie_gpu/bandwidth
    PlatformVariant,   // "variants": labelled sets of changes (set, add, remove)
    WorkloadParameter, // "workload_parameter": one key of the base workload's builder spec
  };
  std::string name;
  Kind kind = Kind::Policy;
  std::string target;              // PlatformField: the path; WorkloadParameter: the key
  std::vector<std::string> labels; // one per value: its cell in the CSV
  std::vector<Json> values;        // what each value changes (a JSON value, or a variant object)
  std::vector<double> numbers;     // the values as numbers (SI units) when every one is: a plot's x then
  std::string place;               // "axes[2]", for messages
  bool numeric() const { return !numbers.empty(); }
};

struct SweepPlot {
  std::string x, y, series;                               // series: an axis name, or empty for one line
  std::vector<std::pair<std::string, std::string>> where; // only the rows with these axis labels
};

struct SweepSpec {
  std::string file;           // for messages
  std::string base_directory; // relative paths in the file resolve here
  std::string name;
  std::string platform, workload, policy = "heft", engine = "simgrid";
  std::uint64_t seed = 0;
  std::vector<SweepAxis> axes;
  std::vector<std::string> metrics;
  std::vector<SweepPlot> plots;
  // With a baseline ("baseline": {"axis": "policy", "value": "fastest-device"}), every metric also gets a
  // ratio column: the point's value over the value of the point that differs only in that axis.
  std::string baseline_axis, baseline_value;
  Json canonical; // the file as read, with base_directory: stored beside the results, compared on resume
  std::size_t point_count() const;
  // The index of the axis called `name` in `axes`, or axes.size() when there is none.
  std::size_t axis_index(const std::string& axis_name) const;
  const SweepAxis* find_axis(const std::string& axis_name) const {
    const std::size_t i = axis_index(axis_name);
    return i < axes.size() ? &axes[i] : nullptr;
  }
};

// One point of the grid: the arguments of its `heterosim run`.
struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::string> labels; // per axis
  std::string platform;            // a preset name or a file (when no axis patches the platform)
  Json platform_json;              // the patched platform, or null
  std::string workload, policy, engine;
  std::uint64_t seed = 0;
};

// Reads and checks a sweep file: axes, metric names and plots; throws InputError naming the file and place.
SweepSpec load_sweep(const std::string& path);
SweepSpec parse_sweep(const std::string& text, const std::string& file, const std::string& base_directory);

// The points in grid order (the first axis varies slowest). Patched platforms are checked here, so an
// axis that makes an invalid platform is reported before anything runs.
std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);

} // namespace hs::cli
