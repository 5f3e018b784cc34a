#pragma once
// Times real kernels on this CPU, one thread, over a grid of shapes, and snapshots the environment.
#include "validation/kernel_shapes.hpp"
#include "validation/measurement_set.hpp"

#include <functional>
#include <string>
#include <vector>

namespace hs::validation {

struct CpuMeasureOptions {
  bool quick = false;  // a reduced grid with fewer repeats (about 10-20 s), for the README
  int min_repeats = 5; // timed runs after warm-up, at least
  std::string note;    // free text stored in the environment snapshot
  int co_running = 2;  // also time every kernel with this many threads running it at once (1: skip)
  // The grid is timed this many times over, each kernel a share of its runs per round: on a shared
  // machine whose neighbours' load drifts over minutes, every kernel then sees the same drift instead of
  // one stretch of it each (the P50 is over all rounds' runs).
  int rounds = 3;
  std::function<void(const std::string&)> progress; // optional
};

std::vector<KernelShape> cpu_measurement_grid(bool quick);

// How a kernel is timed: one warm-up run, then at least min_repeats runs, more while the budget (seconds
// of kernel time) lasts, at most max_repeats. With evict_bytes > 0 the caches are flushed before every
// run by touching that many bytes of another buffer, so each run starts cold, as an op of a graph does
// in the thread executor (its inputs were written long before). Warm kernels shorter than 20 us are
// timed in batches so that clock overhead stays below 1 %.
struct TimingPlan {
  int min_repeats = 5;
  int max_repeats = 1000;
  double budget = 0.2;
  std::size_t evict_bytes = 0;
};

// Seconds per run: thread CPU time (what the kernel costs on a core of its own, even when other processes
// take time slices) and wall-clock time.
struct RunTimes {
  std::vector<double> wall, cpu;
};

RunTimes time_repeatedly(const std::function<void()>& kernel, const TimingPlan& plan);

MeasurementSet measure_cpu(const CpuMeasureOptions& o);

// Runs one copy of the kernel on each of `threads` pinned threads, all starting each repetition
// together; returns every thread's run times.
RunTimes time_co_running(const KernelShape& s, int threads, const TimingPlan& plan);

// Environment snapshot of this machine: CPU model, cores, compiler, Eigen version, date, load.
std::map<std::string, std::string> cpu_environment();

// Nominal fp32 peak of one core: clock (from /proc/cpuinfo) x FLOPs per cycle implied by its vector
// flags. Returns 0 when unknown. `how` receives the derivation in words.
double cpu_core_peak_flops(std::string& how);

} // namespace hs::validation
