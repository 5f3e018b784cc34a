#pragma once
// A set of kernel measurements with the environment they were taken in: the one JSON schema
// ("heterosim-measurements", version 1) that the CPU and CUDA measurement programs write and the
// validation harness reads.
#include <map>
#include <string>
#include <vector>

namespace hs {
class JsonNode;
}

namespace hs::validation {

// One timed kernel configuration. flops and bytes follow the workload builders' conventions (see
// kernel_shapes.hpp), so an efficiency fitted here means the same thing for a graph op of that kind.
struct KernelPoint {
  std::string kind;                    // gemm, conv2d, elementwise, reduction, softmax, layernorm, copy, ...
  std::string label;                   // readable shape, e.g. "gemm m=256 n=256 k=256"
  std::map<std::string, double> shape; // named dimensions
  double flops = 0.0;
  double bytes = 0.0; // read + written
  int repeats = 0;
  // How many threads ran this kernel at once (each on its own core, each timing its own copy): 1 is the
  // kernel alone; more shows what sharing caches and memory bandwidth with busy neighbours costs.
  int co_running = 1;
  double p50 = 0.0;      // seconds
  double p95 = 0.0;      // seconds
  double wall_p50 = 0.0; // seconds of wall-clock time, when recorded (0 otherwise); see environment "timing"
  // Seconds of the fastest run, when recorded (0 otherwise): on a shared machine other tenants only ever
  // add time, so the fastest run is the steadiest figure of the kernel's own cost.
  double best = 0.0;
  double best_or_p50() const { return best > 0 ? best : p50; }
};

struct MeasurementSet {
  std::string device;                             // e.g. "cpu0" (one thread) or "gpu0"
  std::string device_kind;                        // cpu, gpu
  std::map<std::string, std::string> environment; // free-form snapshot: cpu model, compiler, date, ...
  std::map<std::string, double>
      peaks; // nominal figures used to build a platform, with sources in environment
  std::vector<KernelPoint> points;
};

std::string measurement_set_json(const MeasurementSet& m);
// Throws InputError naming the file and the place for anything malformed.
MeasurementSet load_measurement_set(const std::string& path);

// The optional fastest-run time `key` of `n` (0 when absent); InputError unless positive and at most `p50`.
double load_fastest_run(const JsonNode& n, const std::string& key, double p50);

// Order statistic by linear interpolation between closest ranks (q in [0, 1]); `values` is sorted in place.
double percentile(std::vector<double>& values, double q);

} // namespace hs::validation
