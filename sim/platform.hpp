#pragma once
// The hardware: devices (SimGrid hosts) and links; a route is the list of links a transfer crosses, so a
// switch shared by several devices is one link on several routes and contention needs no special case.
// Routes are computed from the links' ends (sim/topology.hpp) or written out in the file.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hs {

using DeviceId = int;
using LinkId = int;

// One DVFS operating point. `speed` is relative to the nominal (first) state.
struct PState {
  double speed = 1.0;
  double idle_watts = 0.0;
  double busy_watts = 0.0;
};

// What a size-aware kernel model needs beyond peaks: how many units (SMs, compute units, cores) share a
// kernel's tiles, and the clocks and power limit that bound how fast they run. 0 when not given.
struct ComputeUnits {
  int count = 0;                // SMs (NVIDIA), compute units (AMD), cores
  double boost_clock_mhz = 0.0; // the clock the peaks are quoted at
  // The clock the board holds under its power limit on long dense kernels, where a datasheet or
  // measurement gives one; 0: the boost clock.
  double sustained_clock_mhz = 0.0;
  double power_limit_watts = 0.0; // board power limit (TDP / TBP)
  // The datasheet's architecture ("Pascal", "Volta", "Vega", ...; see sim/gpu_architecture.hpp) and
  // memory type ("HBM2", "GDDR6", ...): features a cost model learned on other GPUs can transfer; may be
  // empty.
  std::string architecture, memory_type;
  // The software the device runs kernels under, 0 where not given: driver version (NVIDIA's, 418.67),
  // runtime (CUDA or ROCm, 10.1) and DNN library (cuDNN or MIOpen, 7.6).
  double driver_version = 0.0, runtime_version = 0.0, dnn_version = 0.0;
  std::string source;
  // Share of the quoted peak the board sustains (1 without a sustained clock).
  double sustained_share() const;
};

struct Device {
  std::string name;
  std::string kind;  // cpu, gpu, npu, fpga, dsp, ...
  std::string model; // the product, as a driver reports it (e.g. "NVIDIA A100-SXM4-40GB"); may be empty
  ComputeUnits units;
  std::map<std::string, double> peak_flops; // per precision (fp32, fp16, ...), flop/s
  double memory_bandwidth = 0.0;            // bytes/s
  double memory_capacity = 0.0;             // bytes
  double launch_overhead = 0.0;             // seconds per kernel
  // Host seconds to issue one op to the device (an eager framework's Python and dispatcher, the driver's
  // launch), overlapped with the device's earlier ops, in place of the ops' own figures
  // (OpAttributes::host_issue); 0: each op's own (sim/host_issue.hpp).
  double issue_overhead = 0.0;
  std::map<std::string, double> compute_efficiency; // per op kind, "default" as fallback
  double memory_efficiency = 1.0;
  std::vector<std::string> supported_ops; // empty: every op kind
  std::vector<PState> pstates;            // at least one
  int streams = 1;
  int copy_engines =
      1;              // DMA engines per direction: a transfer holds one outgoing here and one incoming there
  std::string source; // where the numbers come from

  bool supports_op(const std::string& op_kind) const;
  bool supports_precision(const std::string& precision) const { return peak_flops.count(precision) > 0; }
  double efficiency_for(const std::string& op_kind) const;
  double idle_watts() const { return pstates.front().idle_watts; }
};

enum class Sharing { SplitDuplex, Shared };

struct Link {
  std::string name;
  double bandwidth = 0.0; // bytes/s, per direction for split-duplex links
  double latency = 0.0;   // seconds
  Sharing sharing = Sharing::SplitDuplex;
  double idle_watts = 0.0;
  double busy_watts = 0.0;
  std::string source;
  // The two nodes (devices, switches, bridges) it joins; crossing it forward goes from ends[0] to ends[1].
  // Empty in a platform that writes its routes out instead.
  std::vector<std::string> ends;
};

// A switch or host bridge: a place where links meet that is not a device, so routes may pass through it.
struct TopologyNode {
  std::string name;
  std::string kind; // switch or bridge
  std::string source;
};

struct RouteHop {
  LinkId link;
  bool forward; // false: the reverse direction of a split-duplex link
};

struct Route {
  std::vector<RouteHop> hops;
  double latency = 0.0;   // sum over hops
  double bandwidth = 0.0; // bottleneck over hops
  bool computed = false;  // from the topology; false: written in the file's "routes"
  double time(double bytes) const { return latency + bytes / bandwidth; }
  // The same hops walked backwards, each in the other direction (latency and bandwidth left to the caller,
  // who knows the links).
  Route reversed() const {
    Route back;
    back.computed = computed;
    for (auto it = hops.rbegin(); it != hops.rend(); ++it)
      back.hops.push_back({it->link, !it->forward});
    return back;
  }
};

class Platform;
struct Calibration; // sim/calibration.hpp

// Where the routes a file does not write come from: the topology's path rule (sim/topology.hpp), asked for
// a pair the first time a transfer or a report needs it, so a cluster of a thousand devices never builds
// the million routes it does not use. Hops only: the platform sums the rest.
class RouteSource {
public:
  virtual ~RouteSource() = default;
  virtual std::optional<Route> route(DeviceId from, DeviceId to) const = 0;
};

// The link direction a hop crosses, numbered 2 x link + 1 for the reverse direction of a split-duplex link
// (a shared link's two directions are one resource, 2 x link). Whatever treats link directions as
// resources (the evaluator, contention-aware planners) numbers them this way.
int link_direction(const Platform& p, const RouteHop& hop);

class Platform {
public:
  std::string name;
  std::string description;
  std::string file; // where it was loaded from, for messages
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<TopologyNode> nodes;          // switches and bridges beyond the devices
  std::vector<std::string> transit_devices; // devices that computed routes may pass through
  // What the platform's devices are costed by unless a run names another calibration: the file's
  // "calibration" (a calibration shipped in models/ by name, or a file relative to the platform file), loaded
  // and checked against the devices; null when the file names none.
  std::shared_ptr<const Calibration> calibration;

  // Whether links give their ends, so routes can be computed rather than written out.
  bool has_topology() const;
  int device_count() const { return static_cast<int>(devices.size()); }
  std::optional<DeviceId> find_device(const std::string& name) const;
  std::optional<LinkId> find_link(const std::string& name) const;

  // nullptr when no route joins the two devices (a transfer between them is impossible). A computed route
  // is found the first time it is asked for and kept; the pointer stays valid as long as the platform.
  const Route* route(DeviceId from, DeviceId to) const;
  // A written route: it takes precedence over a computed one.
  void set_route(DeviceId from, DeviceId to, Route r);
  // Computes the routes no file writes from `source`, except between the pairs in `unreachable`.
  void compute_other_routes(std::shared_ptr<const RouteSource> source,
                            std::vector<std::pair<DeviceId, DeviceId>> unreachable);

  // Checks internal consistency; throws InputError naming `file`.
  void validate() const;

private:
  struct Routes {
    std::unordered_map<std::uint64_t, Route> written;
    std::unordered_map<std::uint64_t, bool> unreachable;
    std::shared_ptr<const RouteSource> source;
    std::unordered_map<std::uint64_t, std::optional<Route>> computed; // what `source` answered so far
  };
  std::uint64_t pair_key(DeviceId from, DeviceId to) const {
    return static_cast<std::uint64_t>(from) << 32 | static_cast<std::uint32_t>(to);
  }
  Route with_totals(Route r) const;
  // Shared by copies: a copy of a loaded platform answers with the same routes without computing them again.
  std::shared_ptr<Routes> routes_ = std::make_shared<Routes>();
  std::shared_ptr<std::unordered_map<std::string, DeviceId>> device_index_ =
      std::make_shared<std::unordered_map<std::string, DeviceId>>();
};

// A platform file's "calibration" as `load_calibration` takes it: a name (of a calibration shipped in
// models/) as written, a relative path resolved against the directory of `platform_file`.
std::string platform_calibration_path(const std::string& written, const std::string& platform_file);

// Loads a platform description (format "heterosim-platform", version 1). `name_or_path` may also be the
// name of a preset in the platforms directory (for example "workstation").
Platform load_platform(const std::string& name_or_path);
// The file load_platform() reads for `name_or_path` (the path itself, or the preset's file); throws
// InputError as load_platform() does when there is none.
std::string platform_file(const std::string& name_or_path);
// The preset names (file stems in platforms_directory()), sorted.
std::vector<std::string> preset_platform_names();
Platform parse_platform(const std::string& json_text, const std::string& file_label);

// Directory holding the preset platform files: data_directory()/platforms (sim/data_directory.hpp), or
// $HETEROSIM_PLATFORMS.
std::string platforms_directory();

} // namespace hs
